/**
 * 法人番号 (corporate number): 13 digits, the first is a check digit over the 12 base digits.
 * With the base digits P1..P12 counted from the right (P1 = last digit), Qn = 1 for odd n and
 * 2 for even n, check = 9 - (Σ Pn·Qn mod 9), so it is never 0. Checked against published
 * numbers: 7000012050002 (国税庁), 1180301018771 (トヨタ自動車), 5010401067252 (ソニーグループ).
 */
export function corporateCheckDigit(base12: string): number {
  let sum = 0;
  for (let n = 1; n <= 12; n++) {
    const digit = base12.charCodeAt(12 - n) - 48;
    sum += digit * (n % 2 === 1 ? 1 : 2);
  }
  return 9 - (sum % 9);
}

export function isValidCorporateNumber(value: string): boolean {
  return /^[1-9]\d{12}$/.test(value) && corporateCheckDigit(value.slice(1)) === Number(value[0]);
}
