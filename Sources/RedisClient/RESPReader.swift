internal import CHiredis

/// hiredis's RESP2 reader with our bounds (the C side of it is Sources/CHiredis): bytes in,
/// replies out. The only Swift file that touches the reader's C types.
final class RESPReader {
    private let reader: OpaquePointer

    init(limits: RedisLimits) {
        guard let reader = chiredis_reader_new(limits.maxReplyElements, limits.maxReplyBytes) else {
            fatalError("hiredis: out of memory creating a reader")
        }
        self.reader = reader
    }

    deinit { chiredis_reader_free(reader) }

    /// Feeds `bytes` and hands each complete reply to `deliver`, in order. Throws on malformed
    /// input or a reply over a limit; the reader is useless afterwards.
    func feed(_ bytes: UnsafeRawBufferPointer, _ deliver: (RedisReply) throws -> Void) throws {
        if !bytes.isEmpty {
            guard chiredis_reader_feed(reader, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), bytes.count) == 0 else {
                throw failure()
            }
        }
        while true {
            var reply: UnsafeMutablePointer<redisReply>?
            let status = chiredis_reader_next(reader, &reply)
            if status < 0 { throw failure() }
            guard status == 1, let reply else { return }
            let value = Self.convert(reply)
            freeReplyObject(reply)
            try deliver(value)
        }
    }

    /// Thrown by a `deliver` whose owner was reset meanwhile: the rest of these bytes belong to
    /// a connection that is gone, and are dropped without a failure.
    struct Abandoned: Error {}

    /// `feed` with its failure as a value: nil when all went well (or was abandoned).
    func parse(_ bytes: UnsafeRawBufferPointer, _ deliver: (RedisReply) throws -> Void) -> RedisFailure? {
        do {
            try feed(bytes, deliver)
            return nil
        } catch is Abandoned {
            return nil
        } catch let failure as RedisFailure {
            return failure
        } catch {
            return .protocolViolation("\(error)")
        }
    }

    private func failure() -> RedisFailure {
        let message = String(cString: chiredis_reader_error(reader))
        return chiredis_reader_limit_exceeded(reader) != 0 ? .protocolViolation("limit: \(message)") : .protocolViolation(message)
    }

    private static func convert(_ pointer: UnsafeMutablePointer<redisReply>) -> RedisReply {
        let reply = pointer.pointee
        switch reply.type {
        case REDIS_REPLY_STRING:
            return .bulk(bytes(reply.str, reply.len))
        case REDIS_REPLY_STATUS:
            return .status(String(decoding: bytes(reply.str, reply.len), as: UTF8.self))
        case REDIS_REPLY_ERROR:
            return .error(String(decoding: bytes(reply.str, reply.len), as: UTF8.self))
        case REDIS_REPLY_INTEGER:
            return .integer(reply.integer)
        case REDIS_REPLY_ARRAY:
            var elements: [RedisReply] = []
            elements.reserveCapacity(reply.elements)
            for index in 0..<reply.elements {
                if let element = reply.element[index] { elements.append(convert(element)) }
            }
            return .array(elements)
        default:
            return .null
        }
    }

    private static func bytes(_ text: UnsafeMutablePointer<CChar>?, _ count: Int) -> [UInt8] {
        guard let text, count > 0 else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: text, count: count))
    }
}
