extension ImpairmentProfile {
    /// The settings that `--NAME`, `--up-NAME`, `--down-NAME` and the stdin command `NAME VALUE`
    /// change. One table so the flags and the live commands cannot drift apart.
    public static let settingNames = [
        "loss", "delay", "jitter", "reorder", "reorder-delay", "duplicate", "corrupt", "corrupt-bits", "bandwidth", "queue",
    ]

    /// Sets the setting `name` from the text `value`, validating it.
    public mutating func set(_ name: String, to value: String) throws(ImpairmentError) {
        switch name {
        case "loss": lossProbability = try ValueParser.probability(value)
        case "delay": delay = try ValueParser.duration(value)
        case "jitter": jitter = try ValueParser.duration(value)
        case "reorder": reorderProbability = try ValueParser.probability(value)
        case "reorder-delay": reorderDelay = try ValueParser.duration(value)
        case "duplicate": duplicateProbability = try ValueParser.probability(value)
        case "corrupt": corruptProbability = try ValueParser.probability(value)
        case "corrupt-bits": corruptBits = try ValueParser.integer(value, in: 1...64, what: "bit count")
        case "bandwidth": bandwidth = try ValueParser.rate(value)
        case "queue": queueLimit = try ValueParser.byteCount(value)
        default: throw .invalidArgument("unknown impairment '\(name)'; known: \(ImpairmentProfile.settingNames.joined(separator: ", "))")
        }
    }
}
