import CLIOptions
import Glibc

// chat-server: the qchat server. Bad flags or files: one line on stderr and exit status 2.
do {
    let options = try ServerOptions(Array(CommandLine.arguments.dropFirst()))
    if options.printFingerprint {
        Console.line(ServerCertificate.display(try ServerCertificate.prepare(options).fingerprint))
        exit(0)
    }
    let app = try ChatServerApp(options: options)
    app.run()
    exit(app.exitStatus)
} catch let information as ServerOptions.Information {
    Console.line(information.text)
    exit(0)
} catch let error as UsageError {
    Console.error(error.message.contains("\n") ? error.message : "chat-server: \(error.message)")
    exit(error.message.hasPrefix("usage:") ? 0 : 2)
} catch {
    Console.error("chat-server: \(error)")
    exit(2)
}
