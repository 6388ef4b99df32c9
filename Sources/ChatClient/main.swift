import CLIOptions
import Glibc

// chat-client: line mode today (--plain or not a terminal); the full-screen UI is issue 4's next step.
do {
    let options = try ClientOptions(Array(CommandLine.arguments.dropFirst()))
    if isatty(0) == 1 && isatty(1) == 1 && !CommandLine.arguments.contains("--plain") {
        Console.error("chat-client: the full-screen UI is not built yet; running in line mode")
    }
    exit(try LineMode(options: options).run())
} catch let error as UsageError {
    Console.error(error.message.hasPrefix("usage:") ? error.message : "chat-client: \(error.message)")
    exit(error.message.hasPrefix("usage:") ? 0 : 2)
} catch {
    Console.error("chat-client: \(error)")
    exit(2)
}
