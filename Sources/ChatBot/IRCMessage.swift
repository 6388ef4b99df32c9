/// One IRC protocol line (RFC 1459 / 2812 framing with IRCv3 message tags):
/// `[@tags ][:source ]COMMAND [params...] [:trailing]`, without its CR LF.
struct IRCMessage: Equatable, Sendable {
    /// RFC 1459: 512 bytes a line, CR LF included, not counting the tags.
    static let maximumLineBytes = 512
    /// IRCv3 message-tags: tags may add up to 8,191 bytes (the `@` and the space included).
    static let maximumTagBytes = 8191

    var tags: [String: String]
    var source: String?
    var command: String
    var parameters: [String]

    init(tags: [String: String] = [:], source: String? = nil, command: String, parameters: [String] = []) {
        self.tags = tags
        self.source = source
        self.command = command
        self.parameters = parameters
    }

    /// The nick of a `nick!user@host` source (the whole source when it has no `!`).
    var sourceNick: Substring? {
        guard let source else { return nil }
        return source.firstIndex(of: "!").map { source[..<$0] } ?? source[...]
    }

    // MARK: Parsing

    /// Parses one line (CR LF already removed); nil when it has no command.
    init?(parsing line: some Collection<UInt8>) {
        var rest = Substring(decoding: line, as: UTF8.self)
        tags = [:]
        if rest.first == "@" {
            let end = rest.firstIndex(of: " ") ?? rest.endIndex
            for tag in rest[rest.index(after: rest.startIndex)..<end].split(separator: ";") {
                if let equals = tag.firstIndex(of: "=") {
                    tags[String(tag[..<equals])] = IRCMessage.unescapedTagValue(tag[tag.index(after: equals)...])
                } else {
                    tags[String(tag)] = ""
                }
            }
            rest = rest[end...].drop { $0 == " " }
        }
        source = nil
        if rest.first == ":" {
            let end = rest.firstIndex(of: " ") ?? rest.endIndex
            source = String(rest[rest.index(after: rest.startIndex)..<end])
            rest = rest[end...].drop { $0 == " " }
        }
        let commandEnd = rest.firstIndex(of: " ") ?? rest.endIndex
        guard commandEnd > rest.startIndex else { return nil }
        command = String(rest[..<commandEnd])
        rest = rest[commandEnd...].drop { $0 == " " }
        parameters = []
        while !rest.isEmpty {
            if rest.first == ":" {
                parameters.append(String(rest.dropFirst()))
                break
            }
            let end = rest.firstIndex(of: " ") ?? rest.endIndex
            parameters.append(String(rest[..<end]))
            rest = rest[end...].drop { $0 == " " }
        }
    }

    /// IRCv3 tag value escapes: `\:` `;`, `\s` space, `\\` backslash, `\r` and `\n`; any other
    /// escaped character stands for itself and a lone trailing backslash is dropped.
    static func unescapedTagValue(_ value: Substring) -> String {
        guard value.contains("\\") else { return String(value) }
        var result = String.UnicodeScalarView()
        var escaping = false
        for scalar in value.unicodeScalars {
            if escaping {
                switch scalar {
                case ":": result.append(";")
                case "s": result.append(" ")
                case "r": result.append("\r")
                case "n": result.append("\n")
                default: result.append(scalar)
                }
                escaping = false
            } else if scalar == "\\" {
                escaping = true
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// By Unicode scalar: CR LF is one Swift Character, but two escapes.
    static func escapedTagValue(_ value: String) -> String {
        var result = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case ";": result += "\\:"
            case " ": result += "\\s"
            case "\\": result += "\\\\"
            case "\r": result += "\\r"
            case "\n": result += "\\n"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    // MARK: Encoding

    /// The line with CR LF, or nil when it cannot be sent as it is: a CR, LF or NUL anywhere, an
    /// empty or spaced middle parameter or one starting with `:`, or more than 512 bytes
    /// without the tags. The last parameter gets a `:` when it needs one.
    func encoded() -> [UInt8]? {
        var line = ""
        if !tags.isEmpty {
            line = "@" + tags.sorted { $0.key < $1.key }
                .map { $0.value.isEmpty ? $0.key : "\($0.key)=\(IRCMessage.escapedTagValue($0.value))" }
                .joined(separator: ";") + " "
            guard line.utf8.count <= IRCMessage.maximumTagBytes else { return nil }
        }
        let tagBytes = line.utf8.count
        if let source {
            guard IRCMessage.isWord(source) else { return nil }
            line += ":" + source + " "
        }
        guard IRCMessage.isWord(command) else { return nil }
        line += command
        for (index, parameter) in parameters.enumerated() {
            guard !parameter.utf8.contains(where: { $0 == 0 || $0 == 10 || $0 == 13 }) else { return nil }
            if index == parameters.count - 1, parameter.isEmpty || parameter.hasPrefix(":") || parameter.contains(" ") {
                line += " :" + parameter
            } else {
                guard IRCMessage.isWord(parameter), !parameter.hasPrefix(":") else { return nil }
                line += " " + parameter
            }
        }
        line += "\r\n"
        guard line.utf8.count - tagBytes <= IRCMessage.maximumLineBytes else { return nil }
        return Array(line.utf8)
    }

    /// Non-empty, without spaces or line ends: what a source, command or middle parameter may be.
    private static func isWord(_ text: String) -> Bool {
        !text.isEmpty && !text.utf8.contains { $0 == 32 || $0 == 0 || $0 == 10 || $0 == 13 }
    }
}
