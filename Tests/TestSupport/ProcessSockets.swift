import Foundation

/// The TCP sockets a process has open, read from /proc: which of a server's clients (Redis's
/// `CLIENT LIST` gives their addresses) belongs to which process.
public enum ProcessSockets {
    /// The local ports of the TCP sockets (IPv4 and IPv6) process `pid` holds.
    public static func localTCPPorts(of pid: Int32) -> Set<UInt16> {
        let folder = "/proc/\(pid)/fd"
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        let inodes = Set(descriptors.compactMap { descriptor -> Substring? in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + descriptor),
                  target.hasPrefix("socket:[") else { return nil }
            return target.dropFirst("socket:[".count).dropLast()
        })
        var ports = Set<UInt16>()
        for table in ["/proc/\(pid)/net/tcp", "/proc/\(pid)/net/tcp6"] {
            // Read to the end: String(contentsOfFile:) stops after the first read of a /proc file
            // (its size says 0), which is one page of the table.
            guard let data = FileHandle(forReadingAtPath: table)?.readDataToEndOfFile() else { continue }
            let text = String(decoding: data, as: UTF8.self)
            // "sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode ..."
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count > 9, inodes.contains(fields[9]), let port = fields[1].split(separator: ":").last,
                      let number = UInt16(port, radix: 16) else { continue }
                ports.insert(number)
            }
        }
        return ports
    }
}

extension RedisServerProcess {
    /// The ids of the connections of `type` (`CLIENT LIST TYPE`: normal, pubsub, ...) that process
    /// `pid` has open to this server.
    public func clientIDs(type: String, ofProcess pid: Int32) throws -> [String] {
        let ports = ProcessSockets.localTCPPorts(of: pid)
        return try cli("CLIENT", "LIST", "TYPE", type).split(separator: "\n").compactMap { line in
            let fields = Dictionary(line.split(separator: " ").compactMap { pair -> (Substring, Substring)? in
                guard let equals = pair.firstIndex(of: "=") else { return nil }
                return (pair[..<equals], pair[pair.index(after: equals)...])
            }, uniquingKeysWith: { first, _ in first })
            guard let id = fields["id"], let address = fields["addr"], let port = address.split(separator: ":").last.flatMap({ UInt16($0) }),
                  ports.contains(port) else { return nil }
            return String(id)
        }
    }
}
