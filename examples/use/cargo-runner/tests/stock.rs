//! Starts a helper and forgets it: std's Child is not killed when it is
//! dropped, so nothing stops it when the test ends.

#[test]
fn never_below_zero() {
    // `sleep` stands in for a server
    std::process::Command::new("sleep")
        .arg("300")
        .spawn()
        .expect("start sleep");
    assert_eq!(shop::left(3, 5), 0);
}
