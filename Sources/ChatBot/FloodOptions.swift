import CLIOptions

/// `chat-bot flood`: one client that sends far faster than the server allows, to see its flood
/// limits work (PROTOCOL.md section 4) while a `chat-bot load` run measures everyone else.
struct FloodOptions {
    static let usage = """
        usage: chat-bot flood [--rate MSGS_PER_S] [--duration S] [--room R] [--nick N] [--size BYTES]
                              [--reconnect] [--json FILE] [options]
          --rate M        messages a second offered to the server (default 1000)
          --duration S    seconds to flood (default 10)
          --room R        room to join and flood (default lobby)
          --nick N        nick to ask for (default flooder)
          --size BYTES    text bytes per message (default 50)
          --reconnect     when the server closes the connection, connect again at once and go on
          --json FILE     also write the report as JSON
        \(ConnectionOptions.usage)
        Reports how many messages were accepted (ack) and refused (rate-limited), and how every
        connection ended (FLOODING is expected). Exit status: 0 when the run completed, 1 when no
        connection could be made.
        """

    var rate = 1000.0
    var duration = 10.0
    var room = "lobby"
    var nick = "flooder"
    var size = 50
    var reconnect = false
    var jsonPath: String?
    var connection: ConnectionOptions

    init(_ arguments: [String]) throws(UsageError) {
        let options = try Options(arguments,
                                  valued: ConnectionOptions.valuedFlags.union(["rate", "duration", "room", "nick", "size", "json"]),
                                  flags: ConnectionOptions.switchFlags.union(["help", "reconnect"]))
        if options.flag("help") { throw UsageError(FloodOptions.usage) }
        guard options.positional.isEmpty else { throw UsageError("unexpected argument '\(options.positional[0])'") }
        rate = try options.double("rate", default: rate, in: 0.1...1_000_000)
        duration = try options.double("duration", default: duration, in: 0.1...86_400)
        room = options.string("room", default: room)
        nick = options.string("nick", default: nick)
        size = try options.integer("size", default: size, in: 1...4096)
        reconnect = options.flag("reconnect")
        jsonPath = options.string("json")
        connection = try ConnectionOptions(options)
    }
}
