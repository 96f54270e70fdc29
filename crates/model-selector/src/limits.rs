//! Size limits for labels and selectors, public so callers can check input up front.

/// Most bytes in the name part of a label key, and in a label value (Kubernetes: 63).
pub const MAX_NAME_LEN: usize = 63;

/// Most bytes in the optional DNS-1123 subdomain prefix of a label key (Kubernetes: 253).
pub const MAX_PREFIX_LEN: usize = 253;

/// Most bytes in a whole label key: prefix, `/` and name.
pub const MAX_KEY_LEN: usize = MAX_PREFIX_LEN + 1 + MAX_NAME_LEN;

/// Most bytes in a label value (Kubernetes: 63).
pub const MAX_VALUE_LEN: usize = MAX_NAME_LEN;

/// Most labels in one [`Labels`](crate::Labels) set.
pub const MAX_LABELS: usize = 64;

/// Most requirements in one selector, counting `matchLabels` entries and `matchExpressions`.
pub const MAX_REQUIREMENTS: usize = 64;

/// Most values in one `In` or `NotIn` requirement.
pub const MAX_VALUES: usize = 128;

/// Most bytes in a selector's string syntax (1 MiB). The canonical text of any selector
/// within the other limits is at most about 545 KB (64 requirements, each a key of
/// [`MAX_KEY_LEN`] and 128 values of [`MAX_VALUE_LEN`]), so every selector this crate
/// writes parses again; the rest is room for spaces.
pub const MAX_SELECTOR_TEXT_LEN: usize = 1 << 20;
