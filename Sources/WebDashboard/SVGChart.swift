// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation

/// A small chart drawn as inline SVG by the server: a line (cumulative events over time) or bars
/// (a value per event, events per minute). Pure: numbers in, markup out; no script needed to see it.
struct SVGChart: Sendable {
    enum Style: Sendable {
        case line
        case bars
    }

    /// Accessible name and caption.
    var title: String
    /// The x axis' unit (`s`, `min`, `week`).
    var xUnit: String
    /// The y axis' unit (`m`, `g`, `events`).
    var yUnit: String
    var style: Style
    /// The points, x ascending.
    var points: [(x: Double, y: Double)]

    static let width = 640.0
    static let height = 220.0
    static let margin = (left: 48.0, right: 12.0, top: 12.0, bottom: 28.0)

    /// The chart as an `<svg>` element (escaped text, fixed decimals).
    var svg: String {
        let plotWidth = Self.width - Self.margin.left - Self.margin.right
        let plotHeight = Self.height - Self.margin.top - Self.margin.bottom
        let xs = points.map(\.x)
        let ys = points.map(\.y)
        let xMin = xs.min() ?? 0
        let xMax = max(xs.max() ?? 1, xMin + 1e-9)
        let yMax = max(ys.max() ?? 1, 1e-9) * 1.1
        let barWidth = max(2, min(24, plotWidth / Double(max(points.count, 1)) * 0.7))
        // Bars keep half a bar (and a gap) off the axes, so the first and last stay whole.
        let inset = style == .bars ? barWidth / 2 + 3 : 0
        func px(_ x: Double) -> Double {
            Self.margin.left + inset
                + (style == .bars && points.count == 1
                    ? (plotWidth - 2 * inset) / 2 : (x - xMin) / (xMax - xMin) * (plotWidth - 2 * inset))
        }
        func py(_ y: Double) -> Double { Self.margin.top + plotHeight - y / yMax * plotHeight }
        var body = ""
        let base = Self.margin.top + plotHeight
        body +=
            #"<line class="axis" x1="\#(f(Self.margin.left))" y1="\#(f(base))" x2="\#(f(Self.width - Self.margin.right))" y2="\#(f(base))"/>"#
        body +=
            #"<line class="axis" x1="\#(f(Self.margin.left))" y1="\#(f(Self.margin.top))" x2="\#(f(Self.margin.left))" y2="\#(f(base))"/>"#
        body +=
            #"<text class="tick" x="\#(f(Self.margin.left - 6))" y="\#(f(Self.margin.top + 10))" text-anchor="end">\#(label(yMax / 1.1))</text>"#
        body += #"<text class="tick" x="\#(f(Self.margin.left - 6))" y="\#(f(base))" text-anchor="end">0</text>"#
        body +=
            #"<text class="tick" x="\#(f(Self.margin.left))" y="\#(f(Self.height - 8))">\#(label(xMin)) \#(escape(xUnit))</text>"#
        body +=
            #"<text class="tick" x="\#(f(Self.width - Self.margin.right))" y="\#(f(Self.height - 8))" text-anchor="end">\#(label(xMax)) \#(escape(xUnit))</text>"#
        switch style {
        case .line:
            let path = points.map { "\(f(px($0.x))),\(f(py($0.y)))" }.joined(separator: " ")
            body += #"<polyline class="series" points="\#(path)"/>"#
        case .bars:
            for point in points {
                body +=
                    #"<rect class="bar" x="\#(f(px(point.x) - barWidth / 2))" y="\#(f(py(point.y)))" "#
                    + #"width="\#(f(barWidth))" height="\#(f(base - py(point.y)))"><title>\#(label(point.y)) \#(escape(yUnit))</title></rect>"#
            }
        }
        if points.isEmpty {
            body +=
                #"<text class="tick" x="\#(f(Self.width / 2))" y="\#(f(Self.height / 2))" text-anchor="middle">no events</text>"#
        }
        return
            #"<svg class="chart" viewBox="0 0 \#(f(Self.width)) \#(f(Self.height))" role="img" aria-label="\#(escape(title))" "#
            + #"preserveAspectRatio="none"><title>\#(escape(title)) (\#(escape(yUnit)))</title>\#(body)</svg>"#
    }

    private func f(_ value: Double) -> String { String(format: "%.1f", value) }

    private func label(_ value: Double) -> String {
        abs(value) >= 100 || value == value.rounded() ? String(format: "%.0f", value) : String(format: "%.2f", value)
    }

    private func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
