//! Adds up prices and counts stock; each integration test in tests/ is a test
//! binary of its own, so a runner starts each one separately.

/// The sum of the prices, in cents.
pub fn total(prices: &[u32]) -> u32 {
    prices.iter().sum()
}

/// What remains of `have` after taking `take`, never below zero.
pub fn left(have: u32, take: u32) -> u32 {
    have.saturating_sub(take)
}

#[cfg(test)]
mod tests {
    #[test]
    fn adds_nothing() {
        assert_eq!(super::total(&[]), 0);
    }
}
