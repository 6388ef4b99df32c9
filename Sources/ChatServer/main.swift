import CLIOptions
import Glibc

// chat-server: the qchat server. Bad flags or files: one line on stderr and exit status 2; a
// reason found later that it cannot serve with (a node of several on a files folder of its own):
// one line on stderr and status 1.
do {
    let options = try ServerOptions(Array(CommandLine.arguments.dropFirst()))
    if options.printFingerprint {
        Console.line(ServerCertificate.display(try ServerCertificate.prepare(options).fingerprint))
        exit(0)
    }
    let app = try ChatServerApp(options: options)
    app.run()
    if let failure = app.failure {
        Console.error("chat-server: \(failure)")
        exit(1)
    }
    exit(0)
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
