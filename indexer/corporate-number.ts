/** The check digit lives with the API (src/text/corporate-number.ts): matching checks it too. */
export { corporateCheckDigit, isValidCorporateNumber } from '../src/text/corporate-number.js';
