package rrset

import (
	"math"
	"strconv"
	"strings"
)

// LOC (RFC 1876): "51 56 0.123 N 5 54 0.000 E 4.00m 1.00m 10000.00m
// 10.00m", latitude and longitude in degrees, minutes and seconds (to the
// thousandth), then altitude, size, horizontal and vertical precision in
// metres (to the centimetre). Minutes, seconds and the three last values
// may be left out (size 1m, precisions 10000m and 10m by default). A size
// or precision is stored as one digit times a power of ten centimetres, so
// New refuses any other value (1.5m), which PowerDNS would round down.
//
// PowerDNS 5.1 prints the stored position exactly, and so does New; 4.7
// and 4.9 compute it in floating point, and print some positions
// otherwise (1 1 0.000 N as 1 0 60.000 N, a point on the equator as S, on
// the prime meridian as W) and refuse them written as 5.1 prints them.
// CheckVersion refuses those for 4.x; NewLive reads 4.x's spelling as the
// same position.

// locLat and locLon are the ranges of the two coordinates, in thousandths
// of a second of arc.
const (
	locLat = 90 * 3600 * 1000
	locLon = 180 * 3600 * 1000
	// locAltMin and locAltMax bound the altitude in centimetres: the
	// encoding starts at -100,000m, and PowerDNS reads the stored value as
	// a signed 32-bit number, so it prints higher altitudes wrong.
	locAltMin = -100000 * 100
	locAltMax = math.MaxInt32 - 100000*100
)

// location is a parsed LOC content: coordinates in thousandths of a second
// of arc (negative to the south and west), altitude in centimetres, size
// and precisions as stored (mantissa and exponent).
type location struct {
	lat, lon, alt int64
	precs         [3]uint8
}

func canonLOC(c *canonCtx, dst []byte, s string) ([]byte, *contentProblem) {
	l, p := parseLOC(s, c.strict)
	if p != nil {
		return nil, p
	}
	return l.append51(dst), nil
}

// parseLOC reads a LOC content. Without strict, it also reads 60 seconds,
// as PowerDNS 4.x prints some positions (1 0 60.000 N for 1 1 0.000 N).
func parseLOC(s string, strict bool) (location, *contentProblem) {
	var l location
	fields := strings.Fields(s)
	var p *contentProblem
	l.lat, fields, p = locCoordinate(fields, "latitude", 'N', 'S', locLat, strict)
	if p != nil {
		return l, p
	}
	l.lon, fields, p = locCoordinate(fields, "longitude", 'E', 'W', locLon, strict)
	if p != nil {
		return l, p
	}
	if len(fields) == 0 {
		return l, invalid("missing altitude")
	}
	if len(fields) > 4 {
		return l, invalid("unexpected " + strconv.Quote(strings.Join(fields[4:], " ")) + " after the vertical precision")
	}
	if l.alt, p = locMetres(fields[0], "altitude", true); p != nil {
		return l, p
	}
	if l.alt < locAltMin || l.alt > locAltMax {
		if l.alt < locAltMin || !strict {
			return l, invalid("altitude " + strconv.Quote(fields[0]) + " is outside -100000m to 42849672.95m")
		}
		return l, unsupported("altitude " + strconv.Quote(fields[0]) + " is over 21374836.47m, which PowerDNS prints wrong")
	}
	l.precs = [3]uint8{0x12, 0x16, 0x13}
	for i, what := range []string{"size", "horizontal precision", "vertical precision"} {
		if i+1 >= len(fields) {
			break
		}
		cm, p := locMetres(fields[i+1], what, false)
		if p != nil {
			return l, p
		}
		e := 0
		for cm >= 10 && cm%10 == 0 && e < 9 {
			cm /= 10
			e++
		}
		if cm > 9 {
			return l, invalid(what + " " + strconv.Quote(fields[i+1]) + " is not one digit times a power of ten (1m, 20m, 0.03m, ...), which LOC stores")
		}
		l.precs[i] = uint8(cm)<<4 | uint8(e)
	}
	return l, nil
}

// locBefore51 returns how PowerDNS 4.x prints a canonical LOC content, and
// whether that differs from it.
func locBefore51(content string) (string, bool) {
	l, p := parseLOC(content, true)
	if p != nil {
		return "", false
	}
	old := string(l.append4(nil))
	return old, old != content
}

// locCoordinate reads "deg [min [sec]] H" from the front of fields and
// returns the coordinate in thousandths of a second of arc, negative to the
// south or west.
func locCoordinate(fields []string, what string, pos, neg byte, limit int64, strict bool) (int64, []string, *contentProblem) {
	var parts [3]string
	n := 0
	for ; n < len(fields) && n < 4; n++ {
		f := fields[n]
		if len(f) == 1 && (upper(f[0]) == pos || upper(f[0]) == neg) {
			break
		}
		if n == 3 {
			return 0, nil, invalid(what + ": missing " + string(pos) + " or " + string(neg))
		}
		parts[n] = f
	}
	if n == len(fields) {
		return 0, nil, invalid(what + ": missing " + string(pos) + " or " + string(neg))
	}
	if n == 0 {
		return 0, nil, invalid("missing " + what)
	}
	hemi := upper(fields[n][0])
	var v int64
	maxSec := int64(59)
	if !strict {
		maxSec = 60
	}
	for i, max := range []int64{limit / 3600000, 59, maxSec} {
		if i >= n {
			break
		}
		whole, frac, dotted := strings.Cut(parts[i], ".")
		if dotted && i < 2 {
			return 0, nil, invalid(what + " " + strconv.Quote(parts[i]) + ": only seconds have decimals")
		}
		if whole == "" || !isDecimal(whole) || len(frac) > 3 || !isDecimal(frac) || (dotted && frac == "") {
			return 0, nil, invalid(what + " " + strconv.Quote(parts[i]) + " is not a number (seconds to the thousandth)")
		}
		w, err := strconv.ParseInt(whole, 10, 32)
		if err != nil || w > max {
			return 0, nil, invalid(what + " " + strconv.Quote(parts[i]) + " is over " + strconv.FormatInt(max, 10))
		}
		v = v*60 + w
		if i == 2 {
			ms, _ := strconv.Atoi((frac + "000")[:3])
			if w == 60 && ms > 0 {
				return 0, nil, invalid(what + " " + strconv.Quote(parts[i]) + " is over 59.999")
			}
			v = v*1000 + int64(ms)
		}
	}
	for i := n; i < 3; i++ {
		v *= 60
	}
	if n < 3 {
		v *= 1000
	}
	if v > limit {
		return 0, nil, invalid(what + " is over " + strconv.FormatInt(limit/3600000, 10) + " degrees")
	}
	if hemi == neg {
		v = -v
	}
	return v, fields[n+1:], nil
}

// locMetres reads metres to the centimetre, with or without a trailing
// "m", and returns centimetres.
func locMetres(f, what string, signed bool) (int64, *contentProblem) {
	s := strings.TrimSuffix(strings.TrimSuffix(f, "m"), "M")
	neg := false
	if signed && s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	whole, frac, dotted := strings.Cut(s, ".")
	if whole == "" || !isDecimal(whole) || len(frac) > 2 || !isDecimal(frac) || (dotted && frac == "") || len(whole) > 9 {
		return 0, invalid(what + " " + strconv.Quote(f) + " is not metres to the centimetre")
	}
	w, _ := strconv.ParseInt(whole, 10, 64)
	cm, _ := strconv.Atoi((frac + "00")[:2])
	v := w*100 + int64(cm)
	if !signed && v > 9*1e9 {
		return 0, invalid(what + " " + strconv.Quote(f) + " is over 90000000m")
	}
	if neg {
		v = -v
	}
	return v, nil
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

// append51 appends the position as PowerDNS 5.1 prints it: from the
// stored integers, exactly.
func (l location) append51(dst []byte) []byte {
	for i, v := range []int64{l.lat, l.lon} {
		hemi := "NE"[i]
		if v < 0 {
			hemi = "SW"[i]
			v = -v
		}
		dst = strconv.AppendInt(dst, v/3600000, 10)
		dst = append(dst, ' ')
		dst = strconv.AppendInt(dst, v/60000%60, 10)
		dst = append(dst, ' ')
		dst = strconv.AppendInt(dst, v/1000%60, 10)
		dst = append(dst, '.')
		ms := v % 1000
		dst = append(dst, byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10), ' ', hemi, ' ')
	}
	return appendLOCMetres(dst, l.alt, l.precs)
}

// append4 appends the position as PowerDNS 4.7 and 4.9 print it: in
// floating point, the hemisphere from the sign (so 0 is S or W).
func (l location) append4(dst []byte) []byte {
	for i, v := range []int64{l.lat, l.lon} {
		deg := float64(v) / 3600000.0
		whole := float64(int64(deg))
		rem := float64(60.0 * float64(deg-whole))
		dst = strconv.AppendInt(dst, abs(int64(deg)), 10)
		dst = append(dst, ' ')
		dst = strconv.AppendInt(dst, abs(int64(float64(float64(deg-whole)*60))), 10)
		dst = append(dst, ' ')
		dst = strconv.AppendFloat(dst, math.Abs(float64(float64(rem-float64(int64(rem)))*60.0)), 'f', 3, 64)
		hemi := "SW"[i]
		if deg > 0 {
			hemi = "NE"[i]
		}
		dst = append(dst, ' ', hemi, ' ')
	}
	return appendLOCMetres(dst, l.alt, l.precs)
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// appendLOCMetres appends altitude, size and precisions as every version
// prints them: in floating point, to the centimetre.
func appendLOCMetres(dst []byte, altCM int64, precs [3]uint8) []byte {
	stored := int32(altCM + 100000*100)
	dst = strconv.AppendFloat(dst, float64(float64(stored)/100.0)-100000, 'f', 2, 64)
	dst = append(dst, 'm')
	for _, p := range precs {
		v := 0.01 * float64(p>>4)
		for range p & 0xf {
			v *= 10
		}
		dst = append(dst, ' ')
		dst = strconv.AppendFloat(dst, v, 'f', 2, 64)
		dst = append(dst, 'm')
	}
	return dst
}
