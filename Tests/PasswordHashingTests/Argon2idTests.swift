import PasswordHashing
import Testing

/// argon2id through libargon2: hashes that verify, mismatches that do not, salts that differ.
struct Argon2idTests {
    /// A hash is argon2id's encoded form with the standard parameters, and the password verifies against it.
    @Test func hashVerifies() throws {
        let hash = try Argon2id.standard.hash("correct horse battery")
        #expect(hash.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"))
        #expect(try Argon2id.verify("correct horse battery", against: hash))
    }

    /// Another password does not verify, and a one-character change is another password.
    @Test func wrongPasswordDoesNotVerify() throws {
        let hash = try Argon2id.standard.hash("correct horse battery")
        #expect(try !Argon2id.verify("correct horse batterY", against: hash))
        #expect(try !Argon2id.verify("", against: hash))
    }

    /// The same password hashed twice gives two hashes (fresh salts), both of which verify.
    @Test func saltsDiffer() throws {
        let cheap = Argon2id(memoryKiB: 64, iterations: 1, parallelism: 1)
        let first = try cheap.hash("password1")
        let second = try cheap.hash("password1")
        #expect(first != second)
        #expect(try Argon2id.verify("password1", against: first))
        #expect(try Argon2id.verify("password1", against: second))
    }

    /// A stored hash keeps its own parameters: one made cheaper still verifies.
    @Test func hashCarriesItsParameters() throws {
        let hash = try Argon2id(memoryKiB: 256, iterations: 1, parallelism: 1).hash("passphrase with spaces")
        #expect(hash.contains("m=256,t=1,p=1"))
        #expect(try Argon2id.verify("passphrase with spaces", against: hash))
    }

    /// A stored hash that does not parse is an error, not a mismatch.
    @Test func malformedHashThrows() {
        #expect(throws: Argon2id.Failure.self) { try Argon2id.verify("password1", against: "$argon2id$garbage") }
    }

    /// Non-ASCII passwords are hashed as their UTF-8.
    @Test func unicodePasswords() throws {
        let cheap = Argon2id(memoryKiB: 64, iterations: 1, parallelism: 1)
        let hash = try cheap.hash("pässwörd ✓ 密码")
        #expect(try Argon2id.verify("pässwörd ✓ 密码", against: hash))
        #expect(try !Argon2id.verify("passwörd ✓ 密码", against: hash))
    }
}
