import EventRuntime

/// A line typed on stdin (or sent by a test through `ImpairmentProxy.perform`).
public enum ProxyCommand: Sendable, Equatable {
    /// `stats`: answered with the JSON statistics line.
    case statistics
    /// `rebind [CLIENT]` and `rebind-address [CLIENT]`: new upstream socket for one client (or all),
    /// with `changeAddress` also on the next 127.0.0.x address.
    case rebind(changeAddress: Bool, client: SocketAddress?)
    /// `blackhole 5s`: drop everything both ways from now for that long.
    case blackhole(TimeSpan)
    /// `loss 0.3`, `up-delay 50ms`, ...: change an impairment on the fly.
    case impairment(ImpairmentSetting)
    case quit
    case help

    public static let summary =
        "commands: stats | rebind [CLIENT] | rebind-address [CLIENT] | blackhole DURATION"
        + " | [up-|down-]{\(ImpairmentProfile.settingNames.joined(separator: ","))} VALUE | quit | help"

    /// nil for a blank line; throws for anything it does not understand.
    public init?(parsing line: String) throws(ImpairmentError) {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
        guard let verb = words.first?.lowercased() else { return nil }
        let arguments = Array(words.dropFirst())
        func requireArgumentCount(_ allowed: ClosedRange<Int>) throws(ImpairmentError) {
            guard allowed.contains(arguments.count) else {
                throw .invalidArgument("'\(line.trimmingWhitespace())': wrong number of arguments; \(ProxyCommand.summary)")
            }
        }
        switch verb {
        case "stats":
            try requireArgumentCount(0...0)
            self = .statistics
        case "rebind", "rebind-address":
            try requireArgumentCount(0...1)
            let client = try arguments.first.map { text throws(ImpairmentError) in try SocketAddress(parsing: text) }
            self = .rebind(changeAddress: verb == "rebind-address", client: client)
        case "blackhole":
            try requireArgumentCount(1...1)
            self = .blackhole(try ValueParser.duration(arguments[0]))
        case "quit", "exit":
            try requireArgumentCount(0...0)
            self = .quit
        case "help":
            self = .help
        default:
            guard let setting = ImpairmentSetting(option: verb, value: arguments.first ?? "") else {
                throw .invalidArgument("unknown command '\(verb)'; \(ProxyCommand.summary)")
            }
            try requireArgumentCount(1...1)
            self = .impairment(setting)
        }
    }
}
