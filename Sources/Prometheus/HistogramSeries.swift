/// One labelled series of a histogram family.
public struct HistogramSeries {
    public let labels: MetricsPage.Labels
    public let histogram: PrometheusHistogram

    public init(_ labels: KeyValuePairs<String, String>, _ histogram: PrometheusHistogram) {
        self.labels = labels.map { (name: $0.key, value: $0.value) }
        self.histogram = histogram
    }

    /// The one series of a family without labels.
    public init(_ histogram: PrometheusHistogram) {
        labels = []
        self.histogram = histogram
    }
}
