/**
 * The calendar day in Japan (UTC+9, no daylight saving) of an instant, as YYYY-MM-DD: the day
 * the service's date-relative answers are of (hiring-activity windows, invoice registration
 * "registered now").
 *
 *   japanDay(new Date('2026-11-29T15:00:00Z')) // '2026-11-30'
 */
const japanOffsetMs = 9 * 60 * 60 * 1000;

export function japanDay(at: Date): string {
  return new Date(at.getTime() + japanOffsetMs).toISOString().slice(0, 10);
}
