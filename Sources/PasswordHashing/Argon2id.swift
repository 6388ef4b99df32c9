internal import CArgon2

/// Password hashing with argon2id (RFC 9106) from Debian's libargon2, the one place that sees its
/// C names. A hash is the self-describing encoded string (`$argon2id$v=19$m=19456,t=2,p=1$salt$hash`),
/// so a stored hash keeps its own parameters: raising them later leaves older hashes checkable.
///
/// Both calls are slow on purpose (tens of milliseconds, docs/PERFORMANCE.md): call them off the
/// event loop. They are safe to call from several threads at once.
public struct Argon2id: Sendable, Equatable {
    /// Memory in KiB.
    public var memoryKiB: UInt32
    /// Passes over the memory.
    public var iterations: UInt32
    public var parallelism: UInt32

    /// The parameters qchat hashes new passwords with: 19 MiB, 2 passes, 1 lane, OWASP's first
    /// recommendation for argon2id; about 20 ms on the development machine (docs/PERFORMANCE.md).
    public static let standard = Argon2id(memoryKiB: 19_456, iterations: 2, parallelism: 1)

    static let saltBytes = 16
    static let hashBytes = 32

    public init(memoryKiB: UInt32, iterations: UInt32, parallelism: UInt32) {
        self.memoryKiB = memoryKiB
        self.iterations = iterations
        self.parallelism = parallelism
    }

    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// The encoded hash of `password` with a fresh random salt.
    public func hash(_ password: String) throws(Failure) -> String {
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<Self.saltBytes).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let length = argon2_encodedlen(iterations, memoryKiB, parallelism, UInt32(Self.saltBytes), UInt32(Self.hashBytes), Argon2_id)
        var encoded = [CChar](repeating: 0, count: length + 1)
        let password = Array(password.utf8)
        let result = argon2id_hash_encoded(iterations, memoryKiB, parallelism, password, password.count, salt, salt.count,
                                           Self.hashBytes, &encoded, encoded.count)
        guard result == ARGON2_OK.rawValue else { throw Failure(description: Self.message(result)) }
        return String(decoding: encoded.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `password` matches an encoded argon2id hash (compared in constant time). Throws for
    /// a hash that does not parse or cannot be computed (out of memory), never for a mismatch.
    public static func verify(_ password: String, against encoded: String) throws(Failure) -> Bool {
        let password = Array(password.utf8)
        let result = argon2id_verify(encoded, password, password.count)
        switch result {
        case ARGON2_OK.rawValue: return true
        case ARGON2_VERIFY_MISMATCH.rawValue: return false
        default: throw Failure(description: message(result))
        }
    }

    private static func message(_ code: Int32) -> String {
        argon2_error_message(code).map { String(cString: $0) } ?? "argon2 error \(code)"
    }
}
