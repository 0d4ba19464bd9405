//! Counts words; its test starts a helper process, as tests of clients often
//! start the server they talk to.

use std::process::{Child, Command};

/// The number of whitespace-separated words in `s`.
pub fn count(s: &str) -> usize {
    s.split_whitespace().count()
}

/// A helper process (`sleep` stands in for a server) that is stopped when the
/// value is dropped, even if the test panics.
pub struct Helper(Child);

impl Helper {
    pub fn start() -> Helper {
        Helper(
            Command::new("sleep")
                .arg("300")
                .spawn()
                .expect("start sleep"),
        )
    }
}

impl Drop for Helper {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_words() {
        let _helper = super::Helper::start();
        assert_eq!(super::count("one two  three"), 3);
    }
}
