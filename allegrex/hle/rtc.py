"""Time: system time (ThreadManForUser), sceRtc ticks and dates, libc time (UtilsForUser).

Everything derives from the simulated clock (Kernel.now_us, from cycles and the CPU
clock in force) plus a fixed, settable epoch, so runs are reproducible. An RTC tick is
a microsecond since 0001-01-01 00:00:00 UTC.
"""

import calendar
import re

from allegrex.hle import codes, pure, reg
from allegrex.hle.registry import Ptr, S64, U32, U64, hle, read64, write64

TICKS_PER_SECOND = 1_000_000
EPOCH_TICKS = 62135596800 * TICKS_PER_SECOND  # 0001-01-01 -> 1970-01-01
PSPTIME_SIZE = 16  # u16 year, month, day, hour, minute, second; u32 microsecond
FILETIME_EPOCH_TICKS = (EPOCH_TICKS - 11644473600 * TICKS_PER_SECOND)  # 1601-01-01


def wall_us(k) -> int:
    """Microseconds since 1970 in the simulated world."""
    return k.options.epoch * 1_000_000 + k.now_us()


def current_tick(k) -> int:
    return EPOCH_TICKS + wall_us(k)


DAY_US = 86400 * TICKS_PER_SECOND
U64_MASK = (1 << 64) - 1


def days_from_civil(year: int, month: int, day: int) -> int:
    """Days from 0001-01-01 to year-month-day in the proleptic Gregorian calendar; months
    outside 1-12 roll into neighbouring years and days outside the month roll over."""
    year += (month - 1) // 12
    month = (month - 1) % 12 + 1
    y = year - (month <= 2)  # count years from March so the leap day ends the year
    era = y // 400
    yoe = y - era * 400
    doy = (153 * ((month + 9) % 12) + 2) // 5
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 306 + day - 1  # 306: days from March 1st of year 0 to January 1st of year 1


def civil_from_days(days: int) -> tuple[int, int, int]:
    z = days + 306
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    return era * 400 + yoe + (month <= 2), month, day


def tick_from_fields(year, month, day, hour, minute, second, micro) -> int:
    days = days_from_civil(year, month, day)
    return (days * DAY_US + ((hour * 60 + minute) * 60 + second) * TICKS_PER_SECOND + micro) & U64_MASK


def fields_from_tick(tick: int) -> tuple:
    days, rest = divmod(tick & U64_MASK, DAY_US)
    year, month, day = civil_from_days(days)
    seconds, micro = divmod(rest, TICKS_PER_SECOND)
    return (year & 0xFFFF, month, day, seconds // 3600, seconds // 60 % 60, seconds % 60, micro)


def tick_to_datetime(tick: int):
    return fields_from_tick(tick)


def read_psptime(k, addr):
    m = k.memory
    fields = [m.read_u16(addr + 2 * i) for i in range(6)]
    return fields + [m.read_u32(addr + 12)]


def write_fields(k, addr, fields) -> None:
    year, month, day, hour, minute, second, micro = fields
    data = b"".join((v & 0xFFFF).to_bytes(2, "little") for v in (year, month, day, hour, minute, second))
    k.memory.write(addr, data + (micro & 0xFFFFFFFF).to_bytes(4, "little"))


def write_psptime(k, addr, tick: int) -> None:
    write_fields(k, addr, fields_from_tick(tick))


# --- system time (ThreadManForUser) ---
TM = "ThreadManForUser"


@hle(TM, in_loop=pure.SYSTEM_TIME)
def sceKernelGetSystemTimeWide(k) -> U64:
    return pure.answer(k, pure.SYSTEM_TIME)


@hle(TM, in_loop=pure.SYSTEM_TIME_LOW)
def sceKernelGetSystemTimeLow(k) -> U32:
    return pure.answer(k, pure.SYSTEM_TIME_LOW)


@hle(TM)
def sceKernelGetSystemTime(k, out: Ptr) -> int:
    write64(k.memory, out, k.now_us())
    return 0


@hle(TM)
def sceKernelUSec2SysClock(k, us: U32, out: Ptr) -> int:
    write64(k.memory, out, us)
    return 0


@hle(TM)
def sceKernelUSec2SysClockWide(k, us: U32) -> U64:
    return us


@hle(TM)
def sceKernelSysClock2USec(k, clock: Ptr, hi: Ptr, lo: Ptr) -> int:
    value = read64(k.memory, clock)
    if hi:
        k.memory.write_u32(hi, value // 1_000_000)
    if lo:
        k.memory.write_u32(lo, value % 1_000_000)
    return 0


@hle(TM)
def sceKernelSysClock2USecWide(k, clock: U64, hi: Ptr, lo: Ptr) -> int:
    if hi:
        k.memory.write_u32(hi, (clock // 1_000_000) & 0xFFFFFFFF)
    if lo:
        k.memory.write_u32(lo, clock % 1_000_000)
    return 0


# --- libc time (UtilsForUser) ---
UT = "UtilsForUser"


@hle(UT)
def sceKernelLibcTime(k, out: Ptr) -> int:
    seconds = wall_us(k) // 1_000_000
    if out:
        if not k.memory.is_valid(out, 4):
            return 0  # measured (misc/libc): a bad pointer gets no time and no fault
        k.memory.write_u32(out, seconds)
    return seconds


@hle(UT)
def sceKernelLibcClock(k) -> int:
    return k.now_us() & 0x7FFFFFFF


@hle(UT)
def sceKernelLibcGettimeofday(k, tv: Ptr, tz: Ptr) -> int:
    us = wall_us(k)
    if tv:
        k.memory.write_u32(tv, us // 1_000_000)
        k.memory.write_u32(tv + 4, us % 1_000_000)
    if tz:
        k.memory.write_u32(tz, 0)
        k.memory.write_u32(tz + 4, 0)
    return 0


# --- sceRtc ---
RTC = "sceRtc"


@hle(RTC)
def sceRtcGetTickResolution(k) -> int:
    return TICKS_PER_SECOND


@hle(RTC)
def sceRtcGetCurrentTick(k, out: Ptr) -> int:
    write64(k.memory, out, current_tick(k))
    return 0


@hle(RTC)
def sceRtcGetCurrentClock(k, out: Ptr, tz_minutes: int) -> int:
    write_psptime(k, out, current_tick(k) + tz_minutes * 60 * TICKS_PER_SECOND)
    return 0


@hle(RTC)
def sceRtcGetCurrentClockLocalTime(k, out: Ptr) -> int:
    write_psptime(k, out, current_tick(k) + local_minutes() * 60 * TICKS_PER_SECOND)
    return 0


def local_minutes() -> int:
    """The simulated PSP's offset from UTC, as its registry sets it (time zone plus summer time)."""
    date = reg.lookup("/CONFIG/DATE")
    return date["time_zone_offset"] + (60 if date["summer_time"] else 0)


def _shift_tick(k, src: int, dst: int, sign: int) -> int:
    """*dst = *src moved by the local offset; 1 when a pointer is not mapped (PPSSPP's answer)."""
    if not (k.memory.is_valid(src, 8) and k.memory.is_valid(dst, 8)):
        return 1
    write64(k.memory, dst, (read64(k.memory, src) + sign * local_minutes() * 60 * TICKS_PER_SECOND) & U64_MASK)
    return 0


@hle(RTC)
def sceRtcConvertUtcToLocalTime(k, utc: Ptr, local: Ptr) -> int:
    return _shift_tick(k, utc, local, 1)


@hle(RTC)
def sceRtcConvertLocalTimeToUTC(k, local: Ptr, utc: Ptr) -> int:
    return _shift_tick(k, local, utc, -1)


@hle(RTC)
def sceRtcIsLeapYear(k, year: int) -> int:
    return 1 if calendar.isleap(year) else 0


@hle(RTC)
def sceRtcGetDaysInMonth(k, year: int, month: int) -> int:
    if year <= 0 or not 1 <= month <= 12:
        return codes.signed(codes.INVALID_VALUE)
    return calendar.monthrange(year, month)[1]


@hle(RTC)
def sceRtcGetDayOfWeek(k, year: U32, month: U32, day: U32) -> int:
    # out-of-range months as the firmware reads them (measured, pspautotests rtc/lookup):
    # month 0 is August, and months past December continue with 31,31,30,31,30-day months
    if month == 0:
        month = 8
    if month > 12:
        extra = month - 12
        day += extra // 5 * sum(EXTRA_MONTH_DAYS) + sum(EXTRA_MONTH_DAYS[:extra % 5])
        month = 12
    return (days_from_civil(year, month, day) + 1) % 7  # 0001-01-01 was a Monday; Sunday = 0


EXTRA_MONTH_DAYS = (31, 31, 30, 31, 30)


def _check_valid(fields) -> int:
    year, month, day, hour, minute, second, micro = fields
    if year < 1 or year > 9999:
        return -1
    if month < 1 or month > 12:
        return -2
    if day < 1 or day > calendar.monthrange(year, month)[1]:
        return -3
    if hour > 23:
        return -4
    if minute > 59:
        return -5
    if second > 59:
        return -6
    if micro >= 1_000_000:
        return -7
    return 0


@hle(RTC)
def sceRtcCheckValid(k, time_ptr: Ptr) -> int:
    return _check_valid(read_psptime(k, time_ptr))


@hle(RTC)
def sceRtcGetTick(k, time_ptr: Ptr, tick_ptr: Ptr) -> int:
    fields = read_psptime(k, time_ptr)
    if not 1 <= fields[0] <= 9999:  # only the year is checked; other fields roll over
        return codes.signed(codes.INVALID_VALUE)
    write64(k.memory, tick_ptr, tick_from_fields(*fields))
    return 0


@hle(RTC)
def sceRtcSetTick(k, time_ptr: Ptr, tick_ptr: Ptr) -> int:
    write_psptime(k, time_ptr, read64(k.memory, tick_ptr))
    return 0


@hle(RTC)
def sceRtcCompareTick(k, a: Ptr, b: Ptr) -> int:
    x, y = read64(k.memory, a), read64(k.memory, b)
    return (x > y) - (x < y)


def _tick_add(k, dst, src, delta_ticks) -> int:
    write64(k.memory, dst, (read64(k.memory, src) + delta_ticks) & U64_MASK)
    return 0


def _make_adder(unit, wide):
    if wide:
        def add(k, dst: Ptr, src: Ptr, amount: S64) -> int:
            return _tick_add(k, dst, src, amount * unit)
    else:
        def add(k, dst: Ptr, src: Ptr, amount: int) -> int:
            return _tick_add(k, dst, src, amount * unit)
    return add


for _name, _unit, _wide in (("Ticks", 1, True), ("Microseconds", 1, True), ("Seconds", TICKS_PER_SECOND, True),
                            ("Minutes", 60 * TICKS_PER_SECOND, True), ("Hours", 3600 * TICKS_PER_SECOND, False),
                            ("Days", DAY_US, False), ("Weeks", 7 * DAY_US, False)):
    hle(RTC, name=f"sceRtcTickAdd{_name}")(_make_adder(_unit, _wide))


def _add_months(k, dst, src, months) -> int:
    tick = read64(k.memory, src)
    days, rest = divmod(tick, DAY_US)
    year, month, day = civil_from_days(days)
    total = year * 12 + (month - 1) + months
    year, month = divmod(total, 12)
    month += 1
    if not 1 <= year <= 9999:
        return 0  # measured: success, but the destination is left alone
    day = min(day, calendar.monthrange(year, month)[1])
    write64(k.memory, dst, (days_from_civil(year, month, day) * DAY_US + rest) & U64_MASK)
    return 0


@hle(RTC)
def sceRtcTickAddMonths(k, dst: Ptr, src: Ptr, months: int) -> int:
    return _add_months(k, dst, src, months)


@hle(RTC)
def sceRtcTickAddYears(k, dst: Ptr, src: Ptr, years: int) -> int:
    return _add_months(k, dst, src, years * 12)


def _unix_seconds(fields) -> int:
    year, month, day, hour, minute, second, _ = fields
    return (tick_from_fields(year, month, day, hour, minute, second, 0) - EPOCH_TICKS) // TICKS_PER_SECOND


@hle(RTC)
def sceRtcGetTime_t(k, time_ptr: Ptr, out: Ptr) -> int:
    k.memory.write_u32(out, _unix_seconds(read_psptime(k, time_ptr)) & 0xFFFFFFFF)
    return 0


@hle(RTC)
def sceRtcSetTime_t(k, time_ptr: Ptr, t: U32) -> int:
    write_psptime(k, time_ptr, EPOCH_TICKS + t * TICKS_PER_SECOND)
    return 0


@hle(RTC)
def sceRtcGetTime64_t(k, time_ptr: Ptr, out: Ptr) -> int:
    write64(k.memory, out, _unix_seconds(read_psptime(k, time_ptr)) & U64_MASK)
    return 0


@hle(RTC)
def sceRtcSetTime64_t(k, time_ptr: Ptr, t: U64) -> int:
    write_psptime(k, time_ptr, EPOCH_TICKS + t * TICKS_PER_SECOND)
    return 0


@hle(RTC)
def sceRtcGetDosTime(k, time_ptr: Ptr, out: Ptr) -> int:
    year, month, day, hour, minute, second, _ = read_psptime(k, time_ptr)
    if year < 1980 or year >= 2108:
        return -1  # measured: outside the DOS date range the call answers -1
    value = ((year - 1980) << 25) | (month << 21) | (day << 16) | (hour << 11) | (minute << 5) | (second >> 1)
    k.memory.write_u32(out, value & 0xFFFFFFFF)
    return 0


@hle(RTC)
def sceRtcSetDosTime(k, time_ptr: Ptr, dos: U32) -> int:
    fields = (((dos >> 25) & 0x7F) + 1980, (dos >> 21) & 0xF, (dos >> 16) & 0x1F, (dos >> 11) & 0x1F,
              (dos >> 5) & 0x3F, (dos & 0x1F) * 2, 0)
    write_fields(k, time_ptr, fields)
    return 0


@hle(RTC)
def sceRtcGetWin32FileTime(k, time_ptr: Ptr, out: Ptr) -> int:
    if not out:
        return codes.signed(codes.INVALID_VALUE)
    fields = read_psptime(k, time_ptr)
    tick = tick_from_fields(*fields)
    if not 1601 <= fields[0] <= 9999:
        write64(k.memory, out, 0)
        return codes.signed(codes.INVALID_VALUE)
    write64(k.memory, out, ((tick - FILETIME_EPOCH_TICKS) * 10) & U64_MASK)
    return 0


@hle(RTC)
def sceRtcSetWin32FileTime(k, time_ptr: Ptr, ft: U64) -> int:
    write_psptime(k, time_ptr, ft // 10 + FILETIME_EPOCH_TICKS)
    return 0


WEEKDAYS = ("Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat")
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def _zone(minutes: int, rfc3339: bool) -> str:
    if rfc3339 and minutes == 0:
        return "Z"
    sign = "-" if minutes < 0 else "+"
    hours, mins = divmod(abs(minutes), 60)
    return f"{sign}{hours:02d}:{mins:02d}" if rfc3339 else f"{sign}{hours:02d}{mins:02d}"


def _format(k, out, tick_ptr, tz_minutes, rfc3339) -> int:
    if not out or not tick_ptr:
        return codes.signed(codes.INVALID_POINTER)
    tick = read64(k.memory, tick_ptr) + tz_minutes * 60 * TICKS_PER_SECOND
    year, month, day, hour, minute, second, micro = fields_from_tick(tick)
    if rfc3339:
        text = (f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}."
                f"{micro // 10000:02d}{_zone(tz_minutes, True)}")
    else:
        weekday = WEEKDAYS[(days_from_civil(year, month, day) + 1) % 7]
        text = (f"{weekday}, {day:02d} {MONTHS[month - 1]} {year:04d} {hour:02d}:{minute:02d}:{second:02d} "
                f"{_zone(tz_minutes, False)}")
    k.memory.write(out, text.encode("ascii") + b"\0")
    return 0


@hle(RTC)
def sceRtcFormatRFC2822(k, out: Ptr, tick_ptr: Ptr, tz_minutes: int) -> int:
    return _format(k, out, tick_ptr, tz_minutes, False)


@hle(RTC)
def sceRtcFormatRFC3339(k, out: Ptr, tick_ptr: Ptr, tz_minutes: int) -> int:
    return _format(k, out, tick_ptr, tz_minutes, True)


@hle(RTC)
def sceRtcFormatRFC2822LocalTime(k, out: Ptr, tick_ptr: Ptr) -> int:
    return _format(k, out, tick_ptr, local_minutes(), False)


@hle(RTC)
def sceRtcFormatRFC3339LocalTime(k, out: Ptr, tick_ptr: Ptr) -> int:
    return _format(k, out, tick_ptr, local_minutes(), True)


RFC3339 = re.compile(r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$")
RFC2822 = re.compile(r"^([A-Za-z]{3,9}), (\d{1,2}) ([A-Za-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) ([+-]\d{4})$")
FULL_WEEKDAYS = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")


def parse_date(text: str):
    """Tick for an RFC 3339 or RFC 2822 date (the two forms the firmware accepts), or None."""
    m = RFC3339.match(text)
    if m:
        year, month, day, hour, minute, second = (int(v) for v in m.groups()[:6])
        frac = m.group(7) or "0"
        micro = int((frac + "000000")[:6])
        zone = m.group(8)
        offset = 0 if zone == "Z" else (1 if zone[0] == "+" else -1) * (int(zone[1:3]) * 60 + int(zone[4:6]))
    else:
        m = RFC2822.match(text)
        if not m or (m.group(1) not in WEEKDAYS and m.group(1) not in FULL_WEEKDAYS) or m.group(3) not in MONTHS:
            return None
        day, year, hour, minute, second = (int(m.group(i)) for i in (2, 4, 5, 6, 7))
        month, micro = MONTHS.index(m.group(3)) + 1, 0
        zone = m.group(8)
        offset = (1 if zone[0] == "+" else -1) * (int(zone[1:3]) * 60 + int(zone[3:5]))
    if _check_valid((year, month, day, hour, minute, second, micro)) < 0:
        return None
    return tick_from_fields(year, month, day, hour, minute, second, micro) - offset * 60 * TICKS_PER_SECOND


def _parse(k, tick_ptr, text_ptr) -> int:
    if not text_ptr or not tick_ptr:
        return -1
    tick = parse_date(k.memory.read_cstring(text_ptr, 256).decode("latin-1"))
    if tick is None:
        return -1
    write64(k.memory, tick_ptr, tick & U64_MASK)
    return 0


@hle(RTC)
def sceRtcParseDateTime(k, tick_ptr: Ptr, text: Ptr) -> int:
    return _parse(k, tick_ptr, text)


@hle(RTC)
def sceRtcParseRFC3339(k, tick_ptr: Ptr, text: Ptr) -> int:
    return _parse(k, tick_ptr, text)
