/// One impairment change aimed at one or both directions: `loss 0.3` (both), `up-delay 50ms`,
/// `down-bandwidth 1Mbit`. Parsed the same way from flags (minus the `--`) and stdin commands.
public struct ImpairmentSetting: Sendable, Equatable {
    public var appliesToUp: Bool
    public var appliesToDown: Bool
    public var name: String
    public var value: String

    /// nil when `option` (without leading dashes) names no impairment in any direction.
    public init?(option: String, value: String) {
        var name = option
        var up = true
        var down = true
        if option.hasPrefix("up-") {
            name = String(option.dropFirst(3))
            down = false
        } else if option.hasPrefix("down-") {
            name = String(option.dropFirst(5))
            up = false
        }
        guard ImpairmentProfile.settingNames.contains(name) else { return nil }
        self.appliesToUp = up
        self.appliesToDown = down
        self.name = name
        self.value = value
    }

    /// Validates first, so a bad value leaves both profiles unchanged.
    public func apply(up: inout ImpairmentProfile, down: inout ImpairmentProfile) throws(ImpairmentError) {
        var newUp = up
        var newDown = down
        if appliesToUp { try newUp.set(name, to: value) }
        if appliesToDown { try newDown.set(name, to: value) }
        up = newUp
        down = newDown
    }
}
