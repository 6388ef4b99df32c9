internal import CHiredis

/// Commands to RESP through hiredis's formatter (`redisFormatCommandArgv`): the only Swift file
/// that calls it.
enum RESPEncoder {
    /// Appends the encoding of `command` to `output`; false when hiredis ran out of memory.
    static func append(_ command: RedisCommand, to output: inout [UInt8]) -> Bool {
        var joined: [UInt8] = []
        joined.reserveCapacity(command.arguments.reduce(0) { $0 + $1.count })
        var lengths: [Int] = []
        lengths.reserveCapacity(command.arguments.count)
        for argument in command.arguments {
            joined += argument
            lengths.append(argument.count)
        }
        // An empty joined buffer still needs a valid pointer.
        if joined.isEmpty { joined.reserveCapacity(1) }
        var target: UnsafeMutablePointer<CChar>?
        let length = joined.withUnsafeBufferPointer { bytes in
            lengths.withUnsafeBufferPointer { sizes in
                chiredis_format_command(&target, Int32(command.arguments.count), bytes.baseAddress, sizes.baseAddress)
            }
        }
        guard length >= 0, let target else { return false }
        defer { redisFreeCommand(target) }
        output.append(contentsOf: UnsafeRawBufferPointer(start: target, count: Int(length)))
        return true
    }
}
