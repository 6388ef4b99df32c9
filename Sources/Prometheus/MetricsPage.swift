/// A page in the Prometheus text exposition format, version 0.0.4: for each metric family a
/// `# HELP` and a `# TYPE` line, then its samples. Built on demand, appended to one byte array.
///
/// Names are the caller's literals (`[a-zA-Z_:][a-zA-Z0-9_:]*`, counters ending in `_total`,
/// base units such as `_seconds` and `_bytes`); label values are escaped here.
public struct MetricsPage {
    public typealias Labels = [(name: String, value: String)]

    /// What the HTTP response carries.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    public private(set) var bytes: [UInt8] = []

    public init() {
        bytes.reserveCapacity(16 << 10)
    }

    public var text: String { String(decoding: bytes, as: UTF8.self) }

    // MARK: Families

    /// A counter of one value.
    public mutating func counter(_ name: String, _ help: String, _ value: Int) {
        family(name, help, "counter", [MetricSample([:], value)])
    }

    /// A counter with one sample per label set.
    public mutating func counter(_ name: String, _ help: String, _ samples: [MetricSample]) {
        family(name, help, "counter", samples)
    }

    /// A counter of seconds (CPU time).
    public mutating func counter(_ name: String, _ help: String, seconds: Double) {
        header(name, help, "counter")
        sample(name, [], seconds)
    }

    public mutating func gauge(_ name: String, _ help: String, _ value: Int) {
        family(name, help, "gauge", [MetricSample([:], value)])
    }

    public mutating func gauge(_ name: String, _ help: String, _ value: Double) {
        header(name, help, "gauge")
        sample(name, [], value)
    }

    public mutating func gauge(_ name: String, _ help: String, _ samples: [MetricSample]) {
        family(name, help, "gauge", samples)
    }

    private mutating func family(_ name: String, _ help: String, _ type: String, _ samples: [MetricSample]) {
        header(name, help, type)
        for sample in samples { self.sample(name, sample.labels, sample.value) }
    }

    /// A histogram, one series per label set: cumulative `_bucket`s with `le`, then `_sum` and `_count`.
    public mutating func histogram(_ name: String, _ help: String, _ series: [HistogramSeries]) {
        header(name, help, "histogram")
        for series in series {
            let labels = series.labels, histogram = series.histogram
            var cumulative = 0
            for (index, bound) in histogram.boundsInSeconds.enumerated() {
                cumulative += histogram.bucketCounts[index]
                sample(name + "_bucket", labels, extra: ("le", MetricsPage.number(bound)), cumulative)
            }
            sample(name + "_bucket", labels, extra: ("le", "+Inf"), histogram.count)
            sample(name + "_sum", labels, histogram.sumInSeconds)
            sample(name + "_count", labels, histogram.count)
        }
    }

    /// A summary of values known only now (such as the RTTs of the open connections): the
    /// given quantiles, then `_sum` and `_count`.
    public mutating func summary(_ name: String, _ help: String, quantiles: [(quantile: Double, value: Double)], sum: Double, count: Int) {
        header(name, help, "summary")
        for (quantile, value) in quantiles {
            sample(name, [], extra: ("quantile", MetricsPage.number(quantile)), value)
        }
        sample(name + "_sum", [], sum)
        sample(name + "_count", [], count)
    }

    // MARK: Lines

    private mutating func header(_ name: String, _ help: String, _ type: String) {
        append("# HELP \(name) ")
        for character in help.unicodeScalars {
            switch character {
            case "\\": append("\\\\")
            case "\n": append("\\n")
            default: bytes.append(contentsOf: String(character).utf8)
            }
        }
        append("\n# TYPE \(name) \(type)\n")
    }

    private mutating func sample(_ name: String, _ labels: Labels, extra: (String, String)? = nil, _ value: Int) {
        labelled(name, labels, extra: extra)
        append(" \(value)\n")
    }

    private mutating func sample(_ name: String, _ labels: Labels, extra: (String, String)? = nil, _ value: Double) {
        labelled(name, labels, extra: extra)
        append(" \(MetricsPage.number(value))\n")
    }

    private mutating func labelled(_ name: String, _ labels: Labels, extra: (String, String)?) {
        append(name)
        guard !labels.isEmpty || extra != nil else { return }
        bytes.append(UInt8(ascii: "{"))
        var first = true
        for (key, value) in labels {
            label(key, value, first: first)
            first = false
        }
        if let extra { label(extra.0, extra.1, first: first) }
        bytes.append(UInt8(ascii: "}"))
    }

    private mutating func label(_ key: String, _ value: String, first: Bool) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        append(key)
        append("=\"")
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): append("\\\\")
            case UInt8(ascii: "\""): append("\\\"")
            case UInt8(ascii: "\n"): append("\\n")
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func append(_ text: String) { bytes.append(contentsOf: text.utf8) }

    /// A sample value or `le`/`quantile` as Prometheus parses it: whole numbers without a
    /// fraction, `+Inf`, `-Inf`, `NaN`.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}
