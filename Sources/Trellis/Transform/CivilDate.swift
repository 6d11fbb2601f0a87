/// Proleptic Gregorian calendar arithmetic on day numbers relative to 1970-01-01,
/// after Howard Hinnant, "chrono-Compatible Low-Level Date Algorithms"
/// (https://howardhinnant.github.io/date_algorithms.html). Exact for every year that
/// fits an `Int64` day count; no calendar objects, locales or time zones involved.
enum CivilDate {
    /// `true` when `year` is a Gregorian leap year (divisible by 4, except centuries
    /// not divisible by 400).
    static func isLeapYear(_ year: Int64) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// Days in `month` (1–12) of `year`: 28–31.
    @inline(__always)
    static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: return isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to `year-month-day` (negative before 1970). The fields
    /// must already be valid (`month` 1–12, `day` 1–`daysInMonth`).
    @inline(__always)
    static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400  // [0, 399]
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1  // [0, 365]
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear  // [0, 146096]
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date `days` after 1970-01-01 (inverse of ``days(year:month:day:)``).
    static func civil(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097  // [0, 146096]
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365  // [0, 399]
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)  // [0, 365]
        let mp = (5 * dayOfYear + 2) / 153  // [0, 11]
        let day = dayOfYear - (153 * mp + 2) / 5 + 1  // [1, 31]
        let month = mp < 10 ? mp + 3 : mp - 9  // [1, 12]
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }
}
