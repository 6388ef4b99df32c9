import CLIOptions
import Glibc

// chat-client: the full-screen UI on a terminal; line mode with --plain, --json or when not a terminal.
do {
    var options = try ClientOptions(Array(CommandLine.arguments.dropFirst()))
    let fullScreen = isatty(0) == 1 && isatty(1) == 1 && !options.plain && !options.json
    if options.discover {
        guard fullScreen else { exit(try DiscoveryListing(options: options).run()) }
        guard let chosen = try DiscoveryPicker().run(), let address = chosen.address else { exit(1) }
        options.host = address.host
        options.port = chosen.port
        options.advertisedFingerprint = chosen.fingerprint
        options.advertisedName = chosen.name
    }
    if let name = options.serverName { try ServerLookup.find(name, for: &options) }
    if fullScreen {
        exit(try TUIMode(options: options).run())
    }
    exit(try LineMode(options: options).run())
} catch let information as ClientOptions.Information {
    Console.line(information.text)
    exit(0)
} catch let error as UsageError {
    Console.error("chat-client: \(error.message)")
    exit(2)
} catch {
    Console.error("chat-client: \(error)")
    exit(2)
}
