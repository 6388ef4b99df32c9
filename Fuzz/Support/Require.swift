/// Stops the fuzzer with a message when a property of the code under test does not hold.
///
/// libFuzzer records any crash as a finding, but a failed property deserves words: the message
/// says which invariant broke, which a bare trap would not.
@inline(__always)
func require(_ holds: @autoclosure () -> Bool, _ property: @autoclosure () -> String) {
    if !holds() {
        fatalError("property violated: \(property())")
    }
}
