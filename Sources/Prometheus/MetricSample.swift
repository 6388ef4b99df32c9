/// One sample of a counter or gauge family: its labels, in order, and its value.
public struct MetricSample {
    public let labels: MetricsPage.Labels
    public let value: Int

    public init(_ labels: KeyValuePairs<String, String>, _ value: Int) {
        self.labels = labels.map { (name: $0.key, value: $0.value) }
        self.value = value
    }
}
