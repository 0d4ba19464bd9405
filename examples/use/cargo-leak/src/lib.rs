//! Counts words; its test starts a helper process and forgets it.

/// The number of whitespace-separated words in `s`.
pub fn count(s: &str) -> usize {
    s.split_whitespace().count()
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_words() {
        // `sleep` stands in for a server; std's Child is not killed on drop,
        // so nothing stops it when the test ends
        std::process::Command::new("sleep")
            .arg("300")
            .spawn()
            .expect("start sleep");
        assert_eq!(super::count("one two  three"), 3);
    }
}
