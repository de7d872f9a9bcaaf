// ANCHOR: all
fn main() {
    // ANCHOR: here
    println!("Hello, world!");
    // ANCHOR_END: here
}
// ANCHOR_END: all
