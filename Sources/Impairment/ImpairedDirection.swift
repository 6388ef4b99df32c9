import EventRuntime
import SplitMix

/// The impairment decisions and counters of one direction. Pure: no sockets and no clock, so the
/// same seed, arrival times and sizes always give the same plans, which is what makes `--seed`
/// reproducible and this type testable without a network.
struct ImpairedDirection {
    private(set) var profile: ImpairmentProfile
    private var random: SplitMix64
    private var shaper: BandwidthShaper
    var statistics = DirectionStatistics()

    init(profile: ImpairmentProfile, seed: UInt64, direction: TrafficDirection) {
        self.profile = profile
        // Separate streams per direction: replies arriving at different moments must not shift
        // the client→server decisions of a replayed run. Each starts at a state drawn from the
        // seed (not at seed + n: SplitMix64's streams from nearby seeds are the same stream
        // shifted by a step).
        var seeder = SplitMix64(seed: seed)
        var state = seeder.next()
        for _ in 0..<direction.rawValue { state = seeder.next() }
        random = SplitMix64(seed: state)
        shaper = BandwidthShaper(rate: profile.bandwidth, queueLimit: profile.effectiveQueueLimit)
    }

    /// A live change; packets already planned keep their times, the bottleneck keeps its backlog.
    mutating func update(_ newProfile: ImpairmentProfile) {
        profile = newProfile
        shaper.rate = newProfile.bandwidth
        shaper.queueLimit = newProfile.effectiveQueueLimit
    }

    /// Decides the fate of a packet that arrived at `now` (outside any blackhole): loss, then
    /// duplication, then per copy the bottleneck queue, delay with jitter, reordering hold-back
    /// and corruption. Counts every decision.
    mutating func plan(packetSize: Int, now: MonotonicTime) -> PacketPlan {
        var plan = PacketPlan()
        if chance(profile.lossProbability) {
            statistics.droppedByLoss += 1
            return plan
        }
        let duplicate = chance(profile.duplicateProbability)
        if duplicate { statistics.duplicated += 1 }
        for _ in 0..<(duplicate ? 2 : 1) {
            guard let departure = shaper.departure(ofPacketSized: packetSize, arrivingAt: now) else {
                statistics.droppedByQueueOverflow += 1
                continue
            }
            var delay = profile.delay
            if profile.jitter > .zero {
                let jitter = Int64(profile.jitter.nanoseconds)
                let jittered = Int64(delay.nanoseconds) + Int64.random(in: -jitter...jitter, using: &random)
                delay = TimeSpan(nanoseconds: UInt64(max(0, jittered)))
            }
            if chance(profile.reorderProbability) {
                delay = delay + profile.reorderDelay
                statistics.reordered += 1
            }
            let corrupt = packetSize > 0 && chance(profile.corruptProbability)
            if corrupt { statistics.corrupted += 1 }
            plan.append(PacketPlan.Copy(releaseAt: departure + delay, corrupt: corrupt))
        }
        return plan
    }

    /// Flips `corruptBits` distinct random bits (fewer if the packet is shorter).
    mutating func corrupt(_ bytes: UnsafeMutableRawBufferPointer) {
        let totalBits = bytes.count * 8
        guard totalBits > 0 else { return }
        var flipped: [Int] = []
        flipped.reserveCapacity(profile.corruptBits)
        while flipped.count < min(profile.corruptBits, totalBits) {
            let bit = Int.random(in: 0..<totalBits, using: &random)
            if flipped.contains(bit) { continue }
            flipped.append(bit)
            bytes[bit / 8] ^= UInt8(1) << UInt8(bit % 8)
        }
    }

    /// True with probability `probability`. Draws nothing when the answer is certain, so turning
    /// an impairment off (0) or fully on (1) does not shift the random sequence of the others.
    private mutating func chance(_ probability: Double) -> Bool {
        if probability <= 0 { return false }
        if probability >= 1 { return true }
        return random.nextDouble() < probability
    }
}
