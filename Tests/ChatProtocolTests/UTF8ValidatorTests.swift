import Testing

@testable import ChatProtocol
import SplitMix

/// The resumable UTF-8 validator, against fixed cases and against the standard library.
struct UTF8ValidatorTests {
    /// The first and last code point of every encoding length, and around the surrogate gap, are valid.
    @Test(arguments: [0x0, 0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFFFD, 0xFFFF, 0x10000, 0x10FFFF] as [UInt32])
    func acceptsBoundaryCodePoints(value: UInt32) throws {
        let scalar = try #require(Unicode.Scalar(value))
        var validator = UTF8Validator()
        #expect(String(scalar).utf8.allSatisfy { validator.consume($0) })
        #expect(validator.isAtCharacterBoundary)
    }

    /// Each invalid sequence is refused at some byte, or left unfinished.
    @Test(arguments: invalidUTF8Sequences)
    func refusesInvalidSequences(sequence: [UInt8]) {
        var validator = UTF8Validator()
        let allConsumed = sequence.allSatisfy { validator.consume($0) }
        #expect(!allConsumed || !validator.isAtCharacterBoundary)
    }

    /// On random byte strings the validator agrees with the standard library's UTF-8 validation.
    @Test func agreesWithStandardLibrary() {
        var generator = SplitMix64(seed: 7)
        // Bias towards bytes that form multi-byte sequences, where the interesting cases are.
        let interesting: [UInt8] = [0x41, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF]
        for _ in 0..<20_000 {
            let length = Int.random(in: 1...6, using: &generator)
            let sample = (0..<length).map { _ in
                Bool.random(using: &generator)
                    ? interesting.randomElement(using: &generator)! : UInt8.random(in: 0...255, using: &generator)
            }
            var validator = UTF8Validator()
            let ours = sample.allSatisfy { validator.consume($0) } && validator.isAtCharacterBoundary
            let standard = String(validating: sample, as: UTF8.self) != nil
            #expect(ours == standard, "\(sample)")
            // The one-shot check used by the JSON parser must agree as well.
            #expect(Self.isValidByCharacterLength(sample) == standard, "\(sample)")
        }
    }

    /// Validates with `multiByteCharacterLength`, the way the JSON string scanner does.
    private static func isValidByCharacterLength(_ sample: [UInt8]) -> Bool {
        sample.withUnsafeBytes { buffer in
            var index = 0
            while index < buffer.count {
                if buffer[index] < 0x80 {
                    index += 1
                } else if let length = UTF8Validator.multiByteCharacterLength(in: buffer, at: index) {
                    index += length
                } else {
                    return false
                }
            }
            return true
        }
    }
}
