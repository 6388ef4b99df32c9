/// xoshiro256** seeded through SplitMix64: fast, small and identical on every platform, so a
/// `--seed` reproduces a run (Swift's SystemRandomNumberGenerator cannot be seeded).
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: (UInt64, UInt64, UInt64, UInt64)

    public init(seed: UInt64) {
        var mixer = seed
        func splitMix() -> UInt64 {
            mixer &+= 0x9E37_79B9_7F4A_7C15
            var value = mixer
            value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
            value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
            return value ^ (value >> 31)
        }
        state = (splitMix(), splitMix(), splitMix(), splitMix())
    }

    public mutating func next() -> UInt64 {
        let result = rotateLeft(state.1 &* 5, by: 7) &* 9
        let shifted = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= shifted
        state.3 = rotateLeft(state.3, by: 45)
        return result
    }

    /// Uniform in [0, 1) from the top 53 bits.
    public mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// True with probability `probability`. Draws nothing when the answer is certain, so turning
    /// an impairment off (0) or fully on (1) does not shift the random sequence of the others.
    public mutating func chance(_ probability: Double) -> Bool {
        if probability <= 0 { return false }
        if probability >= 1 { return true }
        return nextUnit() < probability
    }

    private func rotateLeft(_ value: UInt64, by count: UInt64) -> UInt64 {
        (value << count) | (value >> (64 - count))
    }
}
