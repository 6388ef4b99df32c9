/// The impairment decisions and counters of one direction. Pure: no sockets and no clock, so the
/// same seed, arrival times and sizes always give the same plans, which is what makes `--seed`
/// reproducible and this type testable without a network.
struct ImpairedDirection {
    private(set) var profile: ImpairmentProfile
    private var random: SeededRandom
    private var shaper: BandwidthShaper
    var statistics = DirectionStatistics()

    init(profile: ImpairmentProfile, seed: UInt64, direction: TrafficDirection) {
        self.profile = profile
        // Separate streams per direction: replies arriving at different moments must not shift
        // the client→server decisions of a replayed run.
        random = SeededRandom(seed: seed &+ UInt64(direction.rawValue) &* 0x9E37_79B9_7F4A_7C15)
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
    mutating func plan(packetSize: Int, now: Nanoseconds) -> PacketPlan {
        var plan = PacketPlan()
        if random.chance(profile.lossProbability) {
            statistics.droppedByLoss += 1
            return plan
        }
        let duplicate = random.chance(profile.duplicateProbability)
        if duplicate { statistics.duplicated += 1 }
        for _ in 0..<(duplicate ? 2 : 1) {
            guard let departure = shaper.departure(ofPacketSized: packetSize, arrivingAt: now) else {
                statistics.droppedByQueueOverflow += 1
                continue
            }
            var delay = profile.delay
            if profile.jitter > 0 {
                delay = max(0, delay + Nanoseconds.random(in: -profile.jitter...profile.jitter, using: &random))
            }
            if random.chance(profile.reorderProbability) {
                delay += profile.reorderDelay
                statistics.reordered += 1
            }
            let corrupt = packetSize > 0 && random.chance(profile.corruptProbability)
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
}
