// SPDX-License-Identifier: GPL-2.0-or-later

extension FlightTracker {
    /// Ends a flight at its landing or catch: the flight, or nil when it is not one.
    ///
    /// The rules that do not depend on where the edges lie (gaps across an edge, the floor's mean and
    /// spread, the landing's rise) are checked first, so a dip of an arm that fails them costs no edge
    /// extrapolation; the result is the same, as every rule only refuses.
    @usableFromInline mutating func land() -> FlightEvent? {
        if !takeoffFrozen { takeoff = falling.end }
        let fallingWidest = falling.widest
        let risingWidest = rising.widest
        let floorCount = floorSums.x
        let floorMean = floorTime > 0 ? floorSum / floorTime : 0
        // Free fall is flat and ends in an impact: a V or U dip of an arm movement is neither.
        let magnitudeMean = floorCount > 0 ? floorMagnitudes / floorCount : 0
        let magnitudeSpread = floorCount > 0 ? max(floorSquares / floorCount - magnitudeMean * magnitudeMean, 0) : 0
        let lowMargin = floorMean > FlightTracker.floorMarginFraction * parameters.floorMaxG
        // An edge that lies in a gap of lost notifications is somewhere in that gap: the flight is not
        // measured, and a height from a guess would be wrong by g·t·gap/4 (10 cm per 0.1 s at 0.7 s).
        guard fallingWidest <= FlightTracker.edgeGapMax, risingWidest <= FlightTracker.edgeGapMax,
            floorTime > 0, floorMean <= parameters.floorMaxG,
            magnitudeSpread.squareRoot() <= parameters.floorSpreadMaxG,
            landingRise <= parameters.landingRiseMax,
            !lowMargin || magnitudeSpread.squareRoot() <= parameters.marginSpreadMaxG
        else {
            abort()
            lastPropulsion = lastTime
            return nil
        }
        var landing = rising.start
        var floor = floorCount > 0 ? floorSums / floorCount : .zero
        floor.x = 0
        // How far readings stray from the floor in flight (arm motion, a rope turned by the wrists): the
        // steep part of an edge starts clear of it.
        let spread = floorCount > 0 ? max(floorSquares / floorCount - (floor * floor).sum(), 0) : 0
        let low = max(FlightTracker.steepLowG, 2 * spread.squareRoot())
        // The extrapolation is trusted where it agrees with the moments of the edge's changes within two
        // sample intervals (20 ms at least): arm motion in flight can bend a wrist-worn edge out of a line.
        let agreement = max(2 * (lastTime - secondLastTime), FlightTracker.agreementWindow)
        var quality = EventQuality()
        if let edge = extrapolatedEdge(
            fallingSamples, fromNewest: true, floor: floor, lowG: low, highG: FlightTracker.steepHighG),
            abs(edge - takeoff) <= agreement
        {
            takeoff = edge
        } else {
            quality.insert(.edgeFallback)
        }
        if let edge = extrapolatedEdge(
            risingSamples, fromNewest: false, floor: floor, lowG: low, highG: FlightTracker.steepHighG),
            abs(edge - landing) <= agreement
        {
            landing = edge
        } else {
            quality.insert(.edgeFallback)
        }
        if fallingSamples.clipped(nearFlight: true, within: 3) || risingSamples.clipped(nearFlight: false, within: 3) {
            quality.insert(.clipped)
        }
        abort()
        lastPropulsion = lastTime
        let flight = landing - takeoff
        guard flight >= parameters.minFlight, flight <= parameters.maxFlight else { return nil }
        if lowMargin { quality.insert(.lowFloorMargin) }
        quality.formUnion(
            spacing.quality(
                from: takeoff, to: landing, margin: 2 * spacing.usual,
                slowest: QualityFlag.slowestInterval(for: .jump)))
        return FlightEvent(start: takeoff, end: landing, quality: quality)
    }
}
