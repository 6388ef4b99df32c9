import CLIOptions
import Glibc
import QuicEngine

// chat-bot: scripted bots (`script`), the load generators (`load`, and `irc-load` for an IRC server) and a flooder (`flood`), every bot of the process on
// one event loop. Exit status: 0 done, 1 a failed expectation or load run, 2 bad usage or script.
let usage = """
    usage: chat-bot script FILE|- [options]     run a bot script (chat-bot script --help)
           chat-bot load [options]              measure the server under load (chat-bot load --help)
           chat-bot irc-load [options]          the same load against an IRC server over TLS (chat-bot irc-load --help)
           chat-bot flood [options]             one client flooding a room (chat-bot flood --help)
           chat-bot logins [options]            what logging in costs the server, per path (chat-bot logins --help)
           chat-bot --version
    """

func runScript(_ arguments: [String]) throws -> Int32 {
    let options = try ScriptOptions(arguments)
    guard let text = FileInput.read(options.path) else {
        throw UsageError("cannot read \(options.source): \(String(cString: strerror(errno)))")
    }
    let script: Script
    do {
        script = try ScriptParser.parse(text)
    } catch {
        Console.error("chat-bot: \(options.source) \(error)")
        return 2
    }
    return try ScriptRunner(script: script, source: options.source, connection: options.connection, verbose: options.verbose,
                            moves: options.moves ? options.moveTimeoutMilliseconds : nil).run()
}

do {
    let arguments = Array(CommandLine.arguments.dropFirst())
    switch arguments.first {
    case "script": exit(try runScript(Array(arguments.dropFirst())))
    case "load": exit(try LoadGenerator(options: try LoadOptions(Array(arguments.dropFirst()))).run())
    case "irc-load": exit(try IRCLoadGenerator(options: try LoadOptions(Array(arguments.dropFirst()), irc: true)).run())
    case "flood": exit(try FloodBot(options: try FloodOptions(Array(arguments.dropFirst()))).run())
    case "logins": exit(try LoginBench(options: try LoginBenchOptions(Array(arguments.dropFirst()))).run())
    case "--help", "-h", "help": throw UsageError(usage)
    case "--version":
        Console.line(ProgramVersion.line(program: "chat-bot", libraries: QuicLibraryVersions.all))
        exit(0)
    default: throw UsageError("expected a command\n" + usage)
    }
} catch let error as UsageError {
    Console.error(error.message.hasPrefix("usage:") ? error.message : "chat-bot: \(error.message)")
    exit(error.message.hasPrefix("usage:") ? 0 : 2)
} catch {
    Console.error("chat-bot: \(error)")
    exit(2)
}
