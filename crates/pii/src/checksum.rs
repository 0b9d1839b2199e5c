//! Check digits of the identifiers the detectors look for. Each function takes the digits (or
//! characters) as written, without separators, and says whether they are valid.

fn digits(s: &str) -> Option<Vec<u32>> {
    s.chars().map(|c| c.to_digit(10)).collect()
}

/// Polish PESEL: 11 digits, weights 1-3-7-9, and a birth date that exists (the month carries the
/// century: +80 for the 1800s, +0, +20, +40, +60).
pub fn pesel(s: &str) -> bool {
    let Some(d) = digits(s) else { return false };
    if d.len() != 11 {
        return false;
    }
    let weights = [1, 3, 7, 9, 1, 3, 7, 9, 1, 3];
    let sum: u32 = d.iter().zip(weights).map(|(a, w)| a * w).sum();
    if (10 - sum % 10) % 10 != d[10] {
        return false;
    }
    let (yy, mm, dd) = (d[0] * 10 + d[1], d[2] * 10 + d[3], d[4] * 10 + d[5]);
    let (century, month) = match mm {
        81..=92 => (1800, mm - 80),
        1..=12 => (1900, mm),
        21..=32 => (2000, mm - 20),
        41..=52 => (2100, mm - 40),
        61..=72 => (2200, mm - 60),
        _ => return false,
    };
    dd >= 1 && dd <= days_in_month(century + yy, month)
}

/// Days in `month` (1–12) of `year`.
pub fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        _ => 0,
    }
}

/// Polish NIP (tax id): 10 digits, weights 6-5-7-2-3-4-5-6-7 modulo 11.
pub fn nip(s: &str) -> bool {
    let Some(d) = digits(s) else { return false };
    if d.len() != 10 || d.iter().all(|&x| x == 0) {
        return false;
    }
    let sum: u32 = d.iter().zip([6, 5, 7, 2, 3, 4, 5, 6, 7]).map(|(a, w)| a * w).sum();
    sum % 11 == d[9]
}

/// Polish REGON (business register): 9 digits (weights 8-9-2-3-4-5-6-7) or 14 digits (weights
/// 2-4-8-5-0-9-7-3-6-1-2-4-8, and the first nine a valid REGON themselves), modulo 11, 10 → 0.
pub fn regon(s: &str) -> bool {
    let Some(d) = digits(s) else { return false };
    let check = |d: &[u32], weights: &[u32]| {
        let sum: u32 = d.iter().zip(weights).map(|(a, w)| a * w).sum();
        sum % 11 % 10 == d[weights.len()]
    };
    match d.len() {
        9 => d.iter().any(|&x| x != 0) && check(&d, &[8, 9, 2, 3, 4, 5, 6, 7]),
        14 => check(&d[..9], &[8, 9, 2, 3, 4, 5, 6, 7]) && check(&d, &[2, 4, 8, 5, 0, 9, 7, 3, 6, 1, 2, 4, 8]),
        _ => false,
    }
}

/// The length of IBANs of a country, for the countries a Polish or English call is likely to
/// mention.
pub fn iban_length(country: &str) -> Option<usize> {
    Some(match country {
        "NO" => 15,
        "BE" => 16,
        "DK" | "FI" | "NL" => 18,
        "SI" => 19,
        "AT" | "EE" | "LT" | "LU" => 20,
        "CH" | "HR" | "LV" => 21,
        "BG" | "DE" | "GB" | "IE" => 22,
        "CZ" | "ES" | "RO" | "SE" | "SK" => 24,
        "PT" => 25,
        "FR" | "GR" | "IT" => 27,
        "HU" | "PL" => 28,
        "UA" => 29,
        _ => return None,
    })
}

/// IBAN: a known country's length and ISO 7064 mod 97 = 1.
pub fn iban(s: &str) -> bool {
    let s = s.to_ascii_uppercase();
    if s.len() < 5 || !s.is_ascii() || iban_length(&s[..2]) != Some(s.len()) || !s[2..4].bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    let mut rest = 0u32;
    for c in s[4..].chars().chain(s[..4].chars()) {
        let v = match c {
            '0'..='9' => c as u32 - '0' as u32,
            'A'..='Z' => c as u32 - 'A' as u32 + 10,
            _ => return false,
        };
        rest = if v >= 10 { (rest * 100 + v) % 97 } else { (rest * 10 + v) % 97 };
    }
    rest == 1
}

/// A Polish account number (NRB, 26 digits), which is a PL IBAN without its country code.
pub fn nrb(s: &str) -> bool {
    s.len() == 26 && iban(&format!("PL{s}"))
}

/// The Luhn check of payment card numbers.
pub fn luhn(s: &str) -> bool {
    let Some(d) = digits(s) else { return false };
    if d.len() < 12 {
        return false;
    }
    let sum: u32 = d
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &x)| {
            if i % 2 == 1 {
                let y = x * 2;
                if y > 9 {
                    y - 9
                } else {
                    y
                }
            } else {
                x
            }
        })
        .sum();
    sum % 10 == 0
}

/// Whether a card number starts like one of the big schemes and has their length.
pub fn card_scheme(s: &str) -> Option<&'static str> {
    let n = s.len();
    let prefix = |k: usize| s.get(..k).and_then(|p| p.parse::<u32>().ok()).unwrap_or(0);
    if s.starts_with('4') && matches!(n, 13 | 16 | 19) {
        Some("visa")
    } else if ((51..=55).contains(&prefix(2)) || (2221..=2720).contains(&prefix(4))) && n == 16 {
        Some("mastercard")
    } else if matches!(prefix(2), 34 | 37) && n == 15 {
        Some("amex")
    } else if (s.starts_with("6011") || s.starts_with("65")) && n == 16 {
        Some("discover")
    } else if (3528..=3589).contains(&prefix(4)) && (16..=19).contains(&n) {
        Some("jcb")
    } else if s.starts_with('5') || s.starts_with('6') {
        (16..=19).contains(&n).then_some("maestro")
    } else {
        None
    }
}

fn letter_value(c: char) -> Option<u32> {
    match c {
        'A'..='Z' => Some(c as u32 - 'A' as u32 + 10),
        '0'..='9' => Some(c as u32 - '0' as u32),
        _ => None,
    }
}

/// Polish identity card: three letters and six digits, the first digit the check digit
/// (weights 7-3-1 over the other eight characters).
pub fn pl_id_card(s: &str) -> bool {
    let chars: Vec<char> = s.chars().collect();
    if chars.len() != 9 || !chars[..3].iter().all(char::is_ascii_uppercase) || !chars[3..].iter().all(char::is_ascii_digit) {
        return false;
    }
    let weights = [7, 3, 1, 0, 7, 3, 1, 7, 3];
    let sum: u32 = chars.iter().zip(weights).filter_map(|(&c, w)| letter_value(c).map(|v| v * w)).sum();
    sum % 10 == chars[3].to_digit(10).unwrap_or(99)
}

/// Polish passport: two letters and seven digits, the first digit the check digit (weights
/// 7-3-1 over the other eight characters).
pub fn pl_passport(s: &str) -> bool {
    let chars: Vec<char> = s.chars().collect();
    if chars.len() != 9 || !chars[..2].iter().all(char::is_ascii_uppercase) || !chars[2..].iter().all(char::is_ascii_digit) {
        return false;
    }
    let weights = [7, 3, 0, 1, 7, 3, 1, 7, 3];
    let sum: u32 = chars.iter().zip(weights).filter_map(|(&c, w)| letter_value(c).map(|v| v * w)).sum();
    sum % 10 == chars[2].to_digit(10).unwrap_or(99)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pesel_checks_digits_and_date() {
        assert!(pesel("44051401359"));
        assert!(pesel("02070803628"), "a 1902 birth");
        assert!(pesel("02270803624"), "a 2002 birth: month + 20");
        assert!(!pesel("44051401358"), "wrong check digit");
        assert!(!pesel("44023101353"), "the checksum holds but 31 February does not exist");
        assert!(!pesel("4405140135"));
    }

    #[test]
    fn nip_regon_iban_and_cards() {
        assert!(nip("5260250274"));
        assert!(!nip("5260250275"));
        assert!(regon("010016565"));
        assert!(!regon("010016566"));
        assert!(regon("12345678512347"));
        assert!(iban("PL61109010140000071219812874"));
        assert!(iban("GB82WEST12345698765432"));
        assert!(iban("DE89370400440532013000"));
        assert!(!iban("PL61109010140000071219812875"));
        assert!(!iban("GB82WEST1234569876543"), "wrong length for GB");
        assert!(nrb("61109010140000071219812874"));
        assert!(luhn("4111111111111111"));
        assert!(luhn("5555555555554444"));
        assert!(!luhn("4111111111111112"));
        assert_eq!(card_scheme("4111111111111111"), Some("visa"));
        assert_eq!(card_scheme("378282246310005"), Some("amex"));
        assert_eq!(card_scheme("1234567812345678"), None);
    }

    #[test]
    fn polish_documents() {
        assert!(pl_id_card("ABA300000"));
        assert!(!pl_id_card("ABA300001"));
        assert!(!pl_id_card("AB3000000"));
        assert!(pl_passport("ZS0000177"));
        assert!(!pl_passport("ZS0000178"));
    }
}
