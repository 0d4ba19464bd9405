//! Starts a helper and stops it: a guard kills and waits for it on drop, so
//! the process is gone even when the test panics.

struct Helper(std::process::Child);

impl Drop for Helper {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn totals() {
    // `sleep` stands in for a server
    let _helper = Helper(
        std::process::Command::new("sleep")
            .arg("300")
            .spawn()
            .expect("start sleep"),
    );
    assert_eq!(shop::total(&[250, 199, 1]), 450);
}
