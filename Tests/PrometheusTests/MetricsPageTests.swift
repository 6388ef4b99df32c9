import Prometheus
import Testing

/// The text exposition format as Prometheus parses it.
@Suite("metrics page")
struct MetricsPageTests {
    /// HELP and TYPE lines, label values escaped, whole numbers without a fraction.
    @Test func countersAndGauges() {
        var page = MetricsPage()
        page.counter("qchat_things_total", "Things.\nWith a \\ in it.", 3)
        page.gauge("qchat_level", "A level.", [MetricSample(["type": "a\"b\\c\nd"], 7)])
        page.gauge("qchat_ratio", "A ratio.", 0.25)
        #expect(page.text == """
            # HELP qchat_things_total Things.\\nWith a \\\\ in it.
            # TYPE qchat_things_total counter
            qchat_things_total 3
            # HELP qchat_level A level.
            # TYPE qchat_level gauge
            qchat_level{type="a\\"b\\\\c\\nd"} 7
            # HELP qchat_ratio A ratio.
            # TYPE qchat_ratio gauge
            qchat_ratio 0.25

            """)
    }

    /// Buckets are cumulative, end with +Inf equal to the count, then _sum and _count.
    @Test func histogram() {
        var histogram = PrometheusHistogram(boundsInSeconds: [0.001, 0.01])
        histogram.observe(nanoseconds: 500_000)
        histogram.observe(nanoseconds: 1_000_000)
        histogram.observe(nanoseconds: 5_000_000, times: 2)
        histogram.observe(nanoseconds: 2_000_000_000)
        var page = MetricsPage()
        page.histogram("qchat_wait_seconds", "Waits.", [HistogramSeries(["op": "x"], histogram)])
        #expect(page.text.hasSuffix("""
            qchat_wait_seconds_bucket{op="x",le="0.001"} 2
            qchat_wait_seconds_bucket{op="x",le="0.01"} 4
            qchat_wait_seconds_bucket{op="x",le="+Inf"} 5
            qchat_wait_seconds_sum{op="x"} 2.0115
            qchat_wait_seconds_count{op="x"} 5

            """), "\(page.text)")
        #expect(histogram.count(atMost: 0.001) == 2)
    }

    /// A summary without samples says NaN for its quantiles, as Prometheus clients do.
    @Test func emptySummary() {
        var page = MetricsPage()
        page.summary("qchat_rtt_seconds", "RTT.", quantiles: [(0.5, .nan)], sum: 0, count: 0)
        #expect(page.text.contains("qchat_rtt_seconds{quantile=\"0.5\"} NaN\nqchat_rtt_seconds_sum 0\nqchat_rtt_seconds_count 0\n"))
    }
}
