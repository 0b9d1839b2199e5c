#!/usr/bin/env python3
"""Writes crates/pii/corpus/calls.txt: call-centre utterances in Polish and English with their
personal data marked as [[TYPE|value]].

The utterances are templates we wrote; the values are generated with valid check digits (PESEL,
NIP, REGON, IBAN, cards, Polish ID cards and passports) and rendered the ways speech recognition
writes them: digit groups, separators, digits read one by one, Polish and English number words.
Lines without marks are there for precision: order numbers, amounts, ordinary dates, capitalised
words that are also names. Seeded: the same script writes the same corpus.

    python3 scripts/make-pii-corpus.py > crates/pii/corpus/calls.txt
"""
import random

R = random.Random(20261121)

PL_UNITS = ["zero", "jeden", "dwa", "trzy", "cztery", "pięć", "sześć", "siedem", "osiem", "dziewięć"]
PL_TEENS = ["dziesięć", "jedenaście", "dwanaście", "trzynaście", "czternaście", "piętnaście", "szesnaście",
            "siedemnaście", "osiemnaście", "dziewiętnaście"]
PL_TENS = ["", "", "dwadzieścia", "trzydzieści", "czterdzieści", "pięćdziesiąt", "sześćdziesiąt", "siedemdziesiąt",
           "osiemdziesiąt", "dziewięćdziesiąt"]
PL_HUNDREDS = ["", "sto", "dwieście", "trzysta", "czterysta", "pięćset", "sześćset", "siedemset", "osiemset",
               "dziewięćset"]
EN_UNITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
EN_TEENS = ["ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
            "nineteen"]
EN_TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]


def pl_number(n):
    """0-999 in Polish words."""
    if n == 0:
        return "zero"
    words = []
    if n >= 100:
        words.append(PL_HUNDREDS[n // 100])
        n %= 100
    if 10 <= n <= 19:
        words.append(PL_TEENS[n - 10])
    else:
        if n >= 20:
            words.append(PL_TENS[n // 10])
        if n % 10:
            words.append(PL_UNITS[n % 10])
    return " ".join(words)


def en_number(n):
    """0-99 in English words."""
    if n < 10:
        return EN_UNITS[n]
    if n < 20:
        return EN_TEENS[n - 10]
    return EN_TENS[n // 10] + ("-" + EN_UNITS[n % 10] if n % 10 else "")


def digits_pl(d):
    return " ".join(PL_UNITS[int(c)] for c in d)


def digits_en(d, oh=False):
    out = []
    i = 0
    while i < len(d):
        if i + 1 < len(d) and d[i] == d[i + 1] and R.random() < 0.4:
            out.append("double " + EN_UNITS[int(d[i])])
            i += 2
            continue
        out.append("oh" if oh and d[i] == "0" else EN_UNITS[int(d[i])])
        i += 1
    return " ".join(out)


def groups(d, sizes):
    out, i = [], 0
    for s in sizes:
        out.append(d[i:i + s])
        i += s
    if i < len(d):
        out.append(d[i:])
    return out


def grouped_pl(d, sizes):
    """Polish ASR style: each group read as a number ("sześćset jeden, dwieście…"); groups with a
    leading zero are read digit by digit."""
    parts = []
    for g in groups(d, sizes):
        parts.append(digits_pl(g) if g.startswith("0") else pl_number(int(g)))
    return ", ".join(parts)


def grouped_en(d):
    parts = []
    for g in groups(d, [3, 3, 4] if len(d) == 10 else [3] * (len(d) // 3)):
        parts.append(digits_en(g, oh=True))
    return ", ".join(parts)


def rdigits(n):
    return "".join(R.choice("0123456789") for _ in range(n))


# ---- identifiers with check digits ----

def pesel():
    while True:
        y = R.randint(1940, 2005)
        m = R.randint(1, 12)
        day = R.randint(1, 28)
        mm = m + (20 if y >= 2000 else 0)
        base = f"{y % 100:02d}{mm:02d}{day:02d}{rdigits(4)}"
        w = [1, 3, 7, 9, 1, 3, 7, 9, 1, 3]
        c = (10 - sum(int(a) * b for a, b in zip(base, w)) % 10) % 10
        return base + str(c)


def nip():
    while True:
        base = str(R.randint(1, 9)) + rdigits(8)
        c = sum(int(a) * b for a, b in zip(base, [6, 5, 7, 2, 3, 4, 5, 6, 7])) % 11
        if c < 10:
            return base + str(c)


def regon9():
    base = str(R.randint(1, 9)) + rdigits(7)
    c = sum(int(a) * b for a, b in zip(base, [8, 9, 2, 3, 4, 5, 6, 7])) % 11 % 10
    return base + str(c)


def regon14():
    base = regon9() + rdigits(4)
    c = sum(int(a) * b for a, b in zip(base, [2, 4, 8, 5, 0, 9, 7, 3, 6, 1, 2, 4, 8])) % 11 % 10
    return base + str(c)


def iban_check(country, bban):
    s = bban + "".join(str(ord(ch) - 55) for ch in country) + "00"
    s = "".join(str(ord(ch) - 55) if ch.isalpha() else ch for ch in s)
    return f"{98 - int(s) % 97:02d}"


def nrb():
    bban = rdigits(24)
    return iban_check("PL", bban) + bban


def foreign_iban():
    country, bban = R.choice([
        ("GB", R.choice(["WEST", "BARC", "LOYD", "HBUK"]) + rdigits(14)),
        ("DE", rdigits(18)),
        ("NL", R.choice(["ABNA", "INGB", "RABO"]) + rdigits(10)),
        ("FR", rdigits(23)),
    ])
    return country + iban_check(country, bban) + bban


def luhn_complete(prefix, length):
    body = prefix + rdigits(length - len(prefix) - 1)
    total = 0
    for i, ch in enumerate(reversed(body)):
        v = int(ch)
        if i % 2 == 0:
            v *= 2
            if v > 9:
                v -= 9
        total += v
    return body + str((10 - total % 10) % 10)


def card():
    return R.choice([lambda: luhn_complete("4", 16), lambda: luhn_complete(str(R.randint(51, 55)), 16),
                     lambda: luhn_complete(R.choice(["34", "37"]), 15)])()


def letter_value(ch):
    return ord(ch) - 55 if ch.isalpha() else int(ch)


def id_card():
    letters = "".join(R.choice("ABCDEFGHIJKLMNOPRSTUWYZ") for _ in range(3))
    rest = rdigits(5)
    w = [7, 3, 1, 7, 3, 1, 7, 3]
    c = sum(letter_value(ch) * x for ch, x in zip(letters + rest, w)) % 10
    return letters + str(c) + rest


def passport():
    letters = "".join(R.choice("ABCDEFGHIJKLMNOPRSTUWYZ") for _ in range(2))
    rest = rdigits(6)
    w = [7, 3, 1, 7, 3, 1, 7, 3]
    c = sum(letter_value(ch) * x for ch, x in zip(letters + rest, w)) % 10
    return letters + str(c) + rest


def spaced(d, size=4):
    return " ".join(d[i:i + size] for i in range(0, len(d), size))


# ---- renderings ----

def pl_phone():
    d = R.choice("5678") + rdigits(8)
    style = R.randrange(6)
    if style == 0:
        return f"{d[:3]} {d[3:6]} {d[6:]}"
    if style == 1:
        return f"+48 {d[:3]} {d[3:6]} {d[6:]}"
    if style == 2:
        return f"{d[:3]}-{d[3:6]}-{d[6:]}"
    if style == 3:
        return digits_pl(d)
    if style == 4:
        return grouped_pl(d, [3, 3, 3])
    return d


def en_phone():
    style = R.randrange(6)
    area = str(R.randint(2, 9)) + rdigits(2)
    exch = str(R.randint(2, 9)) + rdigits(2)
    line = rdigits(4)
    if style == 0:
        return f"({area}) {exch}-{line}"
    if style == 1:
        return f"+1 {area} {exch} {line}"
    if style == 2:
        return grouped_en(area + exch + line)
    if style == 3:
        return "07" + rdigits(3) + " " + rdigits(6)
    if style == 4:
        return "+44 7" + rdigits(3) + " " + rdigits(6)
    return f"{area}-{exch}-{line}"


def render_digits(d, lang):
    style = R.randrange(3)
    if style == 0:
        return d
    if lang == "pl":
        return digits_pl(d) if style == 1 else spaced(d, 3)
    return digits_en(d) if style == 1 else spaced(d, 3)


PL_FIRST = ["Anna", "Katarzyna", "Magdalena", "Agnieszka", "Joanna", "Ewa", "Małgorzata", "Monika", "Barbara", "Karolina",
            "Piotr", "Tomasz", "Krzysztof", "Michał", "Marek", "Paweł", "Andrzej", "Jakub", "Łukasz", "Grzegorz"]
PL_LAST_M = ["Nowak", "Kowalski", "Wiśniewski", "Wójcik", "Kamiński", "Lewandowski", "Zieliński", "Szymański", "Woźniak",
             "Dąbrowski", "Kozłowski", "Jankowski", "Mazur", "Kwiatkowski", "Krawczyk", "Piotrowski", "Grabowski",
             "Pawłowski", "Michalski", "Wieczorek", "Jabłoński", "Majewski", "Olszewski", "Stępień", "Malinowski"]
FEMALE = {"Anna", "Katarzyna", "Magdalena", "Agnieszka", "Joanna", "Ewa", "Małgorzata", "Monika", "Barbara", "Karolina"}


def pl_surname(first):
    s = R.choice(PL_LAST_M)
    if first in FEMALE and s.endswith("ski"):
        return s[:-1] + "a"
    return s


# Inflected forms after "z panią/panem" (instrumental) and "do pani/pana" (genitive).
PL_INSTR = {"Nowak": "Nowak", "Kowalski": "Kowalskim", "Kowalska": "Kowalską", "Wiśniewski": "Wiśniewskim",
            "Wiśniewska": "Wiśniewską", "Mazur": "Mazurem", "Wójcik": "Wójcikiem", "Zieliński": "Zielińskim",
            "Zielińska": "Zielińską", "Woźniak": "Woźniakiem", "Krawczyk": "Krawczykiem", "Jankowski": "Jankowskim",
            "Jankowska": "Jankowską", "Lewandowski": "Lewandowskim", "Lewandowska": "Lewandowską"}

EN_FIRST = ["James", "Emily", "Daniel", "Olivia", "Robert", "Sophie", "Thomas", "Laura", "Christopher", "Rachel",
            "David", "Hannah", "Matthew", "Jessica", "Andrew", "Megan", "Steven", "Charlotte", "Richard", "Amanda"]
EN_LAST = ["Miller", "Clarke", "Thompson", "Harris", "Walker", "Turner", "Wright", "Bennett", "Evans", "Green",
           "Robinson", "Carter", "Mitchell", "Phillips", "Campbell", "Parker", "Collins", "Stewart", "Morris", "Cooper"]

PL_STREETS = [("Długa", "Długiej"), ("Marszałkowska", "Marszałkowskiej"), ("Piotrkowska", "Piotrkowskiej"),
              ("Lipowa", "Lipowej"), ("Ogrodowa", "Ogrodowej"), ("Kwiatowa", "Kwiatowej"), ("Polna", "Polnej"),
              ("Mickiewicza", "Mickiewicza"), ("Kościuszki", "Kościuszki"), ("Słowackiego", "Słowackiego"),
              ("Jana Pawła II", "Jana Pawła II"), ("Grunwaldzka", "Grunwaldzkiej")]
CITIES = ["Warszawa", "Kraków", "Łódź", "Wrocław", "Poznań", "Gdańsk", "Lublin", "Katowice", "Białystok", "Rzeszów"]
EN_STREETS = ["Baker Street", "Oak Lane", "Maple Avenue", "High Street", "Station Road", "Church Lane", "Park Avenue",
              "Elm Drive", "Victoria Road", "King Street", "Mill Lane", "Cedar Court"]
UK_POSTCODES = ["SW1A 1AA", "M1 1AE", "B33 8TH", "CR2 6XH", "LS1 4AP", "EH1 2NG", "NW1 6XE", "BS1 5TR"]
US_CITIES = [("Springfield", "IL"), ("Austin", "TX"), ("Denver", "CO"), ("Portland", "OR"), ("Columbus", "OH")]

PL_MONTHS_GEN = ["stycznia", "lutego", "marca", "kwietnia", "maja", "czerwca", "lipca", "sierpnia", "września",
                 "października", "listopada", "grudnia"]
EN_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
             "November", "December"]
PL_ORD_UNITS = ["", "pierwszego", "drugiego", "trzeciego", "czwartego", "piątego", "szóstego", "siódmego", "ósmego",
                "dziewiątego"]
PL_ORD_TEENS = ["dziesiątego", "jedenastego", "dwunastego", "trzynastego", "czternastego", "piętnastego",
                "szesnastego", "siedemnastego", "osiemnastego", "dziewiętnastego"]
PL_ORD_TENS = ["", "", "dwudziestego", "trzydziestego", "czterdziestego", "pięćdziesiątego", "sześćdziesiątego",
               "siedemdziesiątego", "osiemdziesiątego", "dziewięćdziesiątego"]
EN_ORD = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", 6: "sixth", 7: "seventh", 8: "eighth",
          9: "ninth", 10: "tenth", 11: "eleventh", 12: "twelfth", 13: "thirteenth", 14: "fourteenth",
          15: "fifteenth", 16: "sixteenth", 17: "seventeenth", 18: "eighteenth", 19: "nineteenth", 20: "twentieth",
          30: "thirtieth"}


def pl_ord(n):
    if n < 10:
        return PL_ORD_UNITS[n]
    if n < 20:
        return PL_ORD_TEENS[n - 10]
    return PL_ORD_TENS[n // 10] + ((" " + PL_ORD_UNITS[n % 10]) if n % 10 else "")


def en_ord(n):
    if n in EN_ORD:
        return EN_ORD[n]
    return EN_TENS[n // 10] + "-" + EN_ORD[n % 10]


def dob(lang):
    y, m, d = R.randint(1945, 2004), R.randint(1, 12), R.randint(1, 28)
    style = R.randrange(4)
    if lang == "pl":
        if style == 0:
            return f"{d:02d}.{m:02d}.{y}"
        if style == 1:
            return f"{d} {PL_MONTHS_GEN[m - 1]} {y}"
        yy = y % 100
        year = ("tysiąc dziewięćset " + pl_ord(yy)) if y < 2000 else ("dwa tysiące " + pl_ord(yy) if yy else "dwutysięcznego")
        return f"{pl_ord(d)} {PL_MONTHS_GEN[m - 1]} {year}"
    if style == 0:
        return f"{EN_MONTHS[m - 1]} {d}, {y}"
    if style == 1:
        return f"{d:02d}/{m:02d}/{y}"
    century = "nineteen" if y < 2000 else "two thousand"
    yy = y % 100
    year = f"{century} {en_number(yy)}" if y < 2000 else f"two thousand and {en_number(yy)}"
    if style == 2:
        return f"the {en_ord(d)} of {EN_MONTHS[m - 1]} {year}"
    return f"{EN_MONTHS[m - 1]} {en_ord(d)}, {y}"


def pl_email(first, last):
    first, last = strip_pl(first).lower(), strip_pl(last).lower()
    domain, tld = R.choice([("gmail", "com"), ("wp", "pl"), ("onet", "pl"), ("o2", "pl"), ("interia", "pl")])
    if R.random() < 0.5:
        return f"{first}.{last}@{domain}.{tld}"
    return f"{first} kropka {last} małpa {domain} kropka {tld}"


def en_email(first, last):
    first, last = first.lower(), last.lower()
    domain, tld = R.choice([("gmail", "com"), ("outlook", "com"), ("yahoo", "co dot uk"), ("acme-corp", "com")])
    if R.random() < 0.5:
        return f"{first}.{last}@{domain}.{tld.replace(' dot ', '.')}"
    return f"{first} dot {last} at {domain} dot {tld}"


def strip_pl(s):
    return s.translate(str.maketrans("ąćęłńóśźżĄĆĘŁŃÓŚŹŻ", "acelnoszzACELNOSZZ"))


def m(kind, value):
    return f"[[{kind}|{value}]]"


def pl_lines():
    out = []
    for _ in range(12):
        f = R.choice(PL_FIRST)
        agent = f"{f} {pl_surname(f)}"
        out.append(R.choice([
            f"Dzień dobry, z tej strony {m('PERSON_NAME', agent)}, w czym mogę pomóc?",
            f"Dzień dobry, nazywam się {m('PERSON_NAME', agent)} i dzwonię w sprawie reklamacji.",
            f"Witam, tu {m('PERSON_NAME', agent)}, dzwonię z działu obsługi klienta.",
        ]))
    for s, inst in list(PL_INSTR.items())[:10]:
        hon = "panią" if s.endswith("a") else "panem"
        out.append(f"Rozmawiałam wczoraj z {hon} {m('PERSON_NAME', inst)} i obiecał{'a' if s.endswith('a') else ''} oddzwonić.")
    for _ in range(6):
        f = R.choice(PL_FIRST)
        out.append(f"Czy mogę rozmawiać z {'panią' if f in FEMALE else 'panem'} {m('PERSON_NAME', R.choice(PL_LAST_M))}?")
    for _ in range(14):
        out.append(R.choice([
            f"Mój numer telefonu to {m('PHONE_NUMBER', pl_phone())}.",
            f"Proszę oddzwonić na numer {m('PHONE_NUMBER', pl_phone())}, najlepiej po południu.",
            f"Tak, komórka {m('PHONE_NUMBER', pl_phone())}, tam mnie pani złapie.",
            f"Najlepiej dzwonić na {m('PHONE_NUMBER', pl_phone())}.",
        ]))
    for _ in range(14):
        p = pesel()
        out.append(R.choice([
            f"Mój PESEL to {m('PESEL', render_digits(p, 'pl'))}.",
            f"Numer PESEL: {m('PESEL', render_digits(p, 'pl'))}, proszę sprawdzić.",
            f"Podaję pesel, {m('PESEL', render_digits(p, 'pl'))}.",
        ]))
    for _ in range(10):
        n = nip()
        v = R.choice([n, f"{n[:3]}-{n[3:6]}-{n[6:8]}-{n[8:]}", digits_pl(n)])
        out.append(R.choice([f"NIP firmy to {m('NIP', v)}.", f"Faktura na NIP {m('NIP', v)}, poproszę."]))
    for _ in range(10):
        r = R.choice([regon9(), regon9(), regon14()])
        out.append(R.choice([f"REGON {m('REGON', r)}.", f"Numer REGON to {m('REGON', render_digits(r, 'pl'))}."]))
    for _ in range(12):
        a = nrb()
        v = R.choice([f"{a[:2]} {spaced(a[2:])}", a, f"PL{a[:2]} {spaced(a[2:])}", grouped_pl(a, [2] * 13)])
        out.append(R.choice([
            f"Proszę o zwrot na konto {m('IBAN', v)}.",
            f"Numer rachunku: {m('IBAN', v)}.",
            f"Przelew poszedł z konta {m('IBAN', v)}, proszę sprawdzić.",
        ]))
    for _ in range(8):
        c = card()
        v = R.choice([spaced(c), c, digits_pl(c)])
        out.append(R.choice([f"Płacę kartą, numer {m('PAYMENT_CARD', v)}.", f"Numer karty to {m('PAYMENT_CARD', v)}."]))
    for _ in range(10):
        i = id_card()
        v = R.choice([i, f"{i[:3]} {i[3:]}", " ".join(i[:3]) + " " + i[3:]])
        out.append(R.choice([f"Numer dowodu osobistego: {m('ID_CARD', v)}.", f"Seria i numer dowodu to {m('ID_CARD', v)}."]))
    for _ in range(8):
        p = passport()
        v = R.choice([p, f"{p[:2]} {p[2:]}"])
        out.append(f"Numer paszportu {m('PASSPORT', v)}, ważny do przyszłego roku.")
    for _ in range(14):
        street, loc = R.choice(PL_STREETS)
        no = R.randint(1, 120)
        flat = R.randint(1, 60)
        postal = f"{R.randint(0, 99):02d}-{R.randint(0, 999):03d}"
        city = R.choice(CITIES)
        out.append(R.choice([
            f"Mieszkam przy {m('ADDRESS', f'ul. {loc} {no}/{flat}')}, {m('POSTAL_CODE', postal)} {city}.",
            f"Adres do wysyłki: {m('ADDRESS', f'ulica {street} {no} mieszkania {flat}')}, {m('POSTAL_CODE', postal)} {city}.",
            f"Proszę wysłać na {m('ADDRESS', f'ul. {street} {no}')}, kod pocztowy {m('POSTAL_CODE', postal)}.",
            f"Mieszkam na {m('ADDRESS', f'{loc} {pl_number(no)}')} w {city}.",
        ]))
    for _ in range(12):
        v = dob("pl")
        out.append(R.choice([
            f"Urodziłam się {m('DATE_OF_BIRTH', v)}.",
            f"Data urodzenia {m('DATE_OF_BIRTH', v)}.",
            f"Jestem urodzony {m('DATE_OF_BIRTH', v)} w {R.choice(CITIES)}.",
        ]))
    for _ in range(12):
        f = R.choice(PL_FIRST)
        e = pl_email(f, pl_surname(f))
        out.append(R.choice([f"Mój e-mail to {m('EMAIL', e)}.", f"Proszę przesłać potwierdzenie na {m('EMAIL', e)}."]))
    # Lines with several kinds at once.
    for _ in range(8):
        f = R.choice(PL_FIRST)
        s = pl_surname(f)
        out.append(f"Nazywam się {m('PERSON_NAME', f'{f} {s}')}, PESEL {m('PESEL', pesel())}, telefon {m('PHONE_NUMBER', pl_phone())}.")
    # Nothing personal: numbers and dates of other kinds, capitalised words.
    negatives = [
        f"Numer zamówienia to {R.choice('123456789')}{rdigits(8)}, kwota dwieście czterdzieści dziewięć złotych.",
        f"Przesyłka o numerze {rdigits(12)} dotrze do piątku, piętnastego grudnia.",
        "Reklamacja została przyjęta, odpowiemy w ciągu czternastu dni.",
        f"Faktura numer FV/{R.randint(1, 999)}/2026 na kwotę {R.randint(100, 999)},99 zł.",
        "Dobry wieczór, czy rozmawiam z właścicielem konta?",
        "Tak, wszystko się zgadza, dziękuję bardzo.",
        "Rata wynosi trzysta pięćdziesiąt złotych miesięcznie przez dwadzieścia cztery miesiące.",
        "Umowa jest ważna do trzydziestego pierwszego grudnia dwa tysiące dwudziestego szóstego roku.",
        f"Numer sprawy {rdigits(9)}, proszę go zachować.",
        "Spotkanie jest zaplanowane na 12.03.2027 o godzinie 14:30.",
        "Orange i Play mają podobne oferty, ale Plus jest tańszy.",
        "Biedronka i Lidl otwierają nowe sklepy w Warszawie.",
        f"Kod rabatowy to {rdigits(6)}, ważny do końca miesiąca.",
        "Proszę chwilę poczekać, sprawdzę w systemie.",
        f"Zgłoszenie numer {rdigits(10)} zostało zamknięte.",
        "Wilk syty i owca cała, jak to mówią.",
        "Kwota zwrotu to tysiąc dwieście złotych.",
        f"Numer klienta {rdigits(8)}, umowa z 2019 roku.",
    ]
    # Harder: no cue words, names mid-sentence or inflected, numbers read in pairs, answers to a
    # question asked in the turn before.
    f1, f2 = R.choice(PL_FIRST), R.choice(PL_FIRST)
    hard = [
        f"Przekażę to {m('PERSON_NAME', 'Annie Kowalskiej')}, ona prowadzi pani sprawę.",
        f"Tak, to ja, {m('PERSON_NAME', f1)}, dzwoniłam w zeszłym tygodniu.",
        f"Kierownikiem zmiany jest {m('PERSON_NAME', 'Piotr Zieliński')}.",
        f"Umowę podpisywał {m('PERSON_NAME', 'Marek Wójcik')}, mój mąż.",
        f"Dobrze, a jaki numer? {m('PHONE_NUMBER', grouped_pl('6' + rdigits(8), [3, 2, 2, 2]))}.",
        f"Sześćset to początek, cały numer to {m('PHONE_NUMBER', '6' + rdigits(2) + ' ' + rdigits(2) + ' ' + rdigits(2) + ' ' + rdigits(2))}.",
        f"Proszę zapisać: {m('PESEL', spaced(pesel(), 2))}.",
        f"Pani {m('PERSON_NAME', 'Nowak')} prosiła o kontakt mailowy na {m('EMAIL', 'k.nowak@firma.com.pl')}.",
        f"Wysyłka na {m('ADDRESS', 'ul. Kościuszki 14a')}, {m('POSTAL_CODE', '30-114')} Kraków.",
        f"Mieszkam na {m('ADDRESS', 'osiedlu Tysiąclecia 7/15')} w Katowicach.",
        f"Karta się kończy na cztery cyfry, ale cały numer to {m('PAYMENT_CARD', spaced(luhn_complete('4', 16)))}.",
        f"Mam wpisane urodziny {m('DATE_OF_BIRTH', '3 maja 1978')}, to się zgadza.",
        f"Z panem {m('PERSON_NAME', 'Grzegorzem Brzęczyszczykiewiczem')} rozmawiałem o ratach.",
        f"Syn, {m('PERSON_NAME', 'Jakub')}, też ma u państwa konto.",
        "Zadzwonię jutro o dziewiątej, numer mam zapisany.",
        "Tak, Warszawa, Mokotów, ale adres podam mailowo.",
        "Kwota to sześćset dwadzieścia trzy złote i czterdzieści groszy.",
        f"Numer umowy: {rdigits(9)}, podpisana w marcu.",
        "Koszt to trzysta złotych za dwa tysiące minut.",
        "W piątek, dwunastego, mamy przegląd, proszę przyjechać do serwisu.",
    ]
    out.extend(hard)
    out.extend(negatives)
    return ["pl\t" + line for line in out]


def en_lines():
    out = []
    for _ in range(12):
        agent = f"{R.choice(EN_FIRST)} {R.choice(EN_LAST)}"
        out.append(R.choice([
            f"Thank you for calling, my name is {m('PERSON_NAME', agent)}, how can I help you today?",
            f"Hi, this is {m('PERSON_NAME', agent)} from the billing team.",
            f"Hello, I'm {m('PERSON_NAME', agent)} and I'm calling about my order.",
        ]))
    for _ in range(8):
        out.append(R.choice([
            f"Could I speak to Mr {m('PERSON_NAME', R.choice(EN_LAST))}, please?",
            f"I spoke with {m('PERSON_NAME', R.choice(EN_FIRST))} yesterday and she promised a refund.",
            f"Thanks, {m('PERSON_NAME', R.choice(EN_FIRST))}, that really helps.",
            f"Mrs {m('PERSON_NAME', R.choice(EN_LAST))} asked us to call her back.",
        ]))
    for _ in range(14):
        out.append(R.choice([
            f"My phone number is {m('PHONE_NUMBER', en_phone())}.",
            f"You can reach me at {m('PHONE_NUMBER', en_phone())} after five.",
            f"Please call me back on {m('PHONE_NUMBER', en_phone())}.",
            f"The best number is {m('PHONE_NUMBER', en_phone())}.",
        ]))
    for _ in range(10):
        c = card()
        v = R.choice([spaced(c), c, digits_en(c), "-".join(c[i:i + 4] for i in range(0, len(c), 4))])
        out.append(R.choice([
            f"The card number is {m('PAYMENT_CARD', v)}.",
            f"I'd like to pay by card, it's {m('PAYMENT_CARD', v)}.",
            f"My Visa is {m('PAYMENT_CARD', v)} and it expires next year.",
        ]))
    for _ in range(10):
        i = foreign_iban()
        v = R.choice([spaced(i), i])
        out.append(R.choice([f"My IBAN is {m('IBAN', v)}.", f"Please refund it to account {m('IBAN', v)}."]))
    for _ in range(6):
        a = nrb()
        out.append(f"I bank in Poland, the account number is {m('IBAN', 'PL' + a[:2] + ' ' + spaced(a[2:]))}.")
    for _ in range(8):
        p = passport()
        out.append(R.choice([f"My Polish passport number is {m('PASSPORT', p)}.", f"Passport {m('PASSPORT', p[:2] + ' ' + p[2:])}, issued in Warsaw."]))
    for _ in range(5):
        out.append(f"My Polish ID card number is {m('ID_CARD', id_card())}.")
    for _ in range(6):
        out.append(f"For the invoice, our Polish tax ID, the NIP, is {m('NIP', nip())}.")
    for _ in range(5):
        out.append(f"My PESEL number is {m('PESEL', render_digits(pesel(), 'en'))}.")
    for _ in range(14):
        no = R.randint(2, 250)
        street = R.choice(EN_STREETS)
        flat = R.randint(1, 30)
        spoken = en_number(no) if no < 100 else str(no)
        choice = R.randrange(4)
        if choice == 0:
            out.append(f"I live at {m('ADDRESS', f'{no} {street}')}, London {m('POSTAL_CODE', R.choice(UK_POSTCODES))}.")
        elif choice == 1:
            out.append(f"Send it to {m('ADDRESS', f'{spoken} {street}, apartment {flat}')}, please.")
        elif choice == 2:
            city, state = R.choice(US_CITIES)
            out.append(f"The address is {m('ADDRESS', f'{no} {street}')}, {city}, {state} {m('POSTAL_CODE', str(R.randint(10000, 99999)))}.")
        else:
            out.append(f"My postcode is {m('POSTAL_CODE', R.choice(UK_POSTCODES))} and the house number is {no}.")
    for _ in range(12):
        v = dob("en")
        out.append(R.choice([
            f"My date of birth is {m('DATE_OF_BIRTH', v)}.",
            f"I was born on {m('DATE_OF_BIRTH', v)}.",
            f"Date of birth, {m('DATE_OF_BIRTH', v)}.",
        ]))
    for _ in range(12):
        e = en_email(R.choice(EN_FIRST), R.choice(EN_LAST))
        out.append(R.choice([f"My email is {m('EMAIL', e)}.", f"Send the confirmation to {m('EMAIL', e)}, thanks."]))
    for _ in range(8):
        f, l = R.choice(EN_FIRST), R.choice(EN_LAST)
        out.append(f"Yes, it's {m('PERSON_NAME', f'{f} {l}')}, and my number is {m('PHONE_NUMBER', en_phone())}.")
    negatives = [
        f"Your order number is {R.choice('123456789')}{rdigits(8)} and the total was forty nine ninety nine.",
        "The refund will be processed within five to seven business days.",
        "Will you be available on Friday, March the twentieth?",
        "Mark it as urgent, please.",
        f"The tracking number is {rdigits(12)}.",
        "We have two plans, the Basic and the Premium.",
        "Bill me at the end of the month.",
        f"Your case reference is {rdigits(9)}.",
        "The meeting is on June 15, 2027 at 3 pm.",
        "I paid two hundred and fifty dollars last time.",
        f"Invoice {rdigits(10)} is overdue by thirty days.",
        "May I put you on hold for a moment?",
        "Grace period ends next week, so no late fee yet.",
        "Amazon and Apple both accept returns within thirty days.",
        "The contract started in 2019 and renews every January.",
        f"Your customer number is {rdigits(8)}.",
        "Okay, thank you very much, have a good day.",
        "The model number is XR 500, the newer one.",
    ]
    hard = [
        f"I'll pass this on to {m('PERSON_NAME', 'Jessica')}, she handles refunds.",
        f"It was {m('PERSON_NAME', 'David Collins')} who set up the account.",
        f"Sure, the number's {m('PHONE_NUMBER', 'four one five, five five five, oh one nine two')}.",
        f"Okay, so that's {m('PHONE_NUMBER', '212 555 0147')}, right?",
        f"The account holder is Mrs {m('PERSON_NAME', 'Parker')}, she's my mother.",
        f"Email is {m('EMAIL', 'r.evans1985 at gmail dot com')}.",
        f"{m('ADDRESS', 'Flat 4, 18 Victoria Road')}, that's where I live.",
        f"Born {m('DATE_OF_BIRTH', '12/07/1969')}, if that helps.",
        f"We moved to {m('ADDRESS', '77 Maple Avenue')} last spring.",
        f"My colleague {m('PERSON_NAME', 'Steven Morris')} will call you back.",
        "Will can call you back tomorrow morning.",
        "The package weighs twelve pounds and costs forty dollars.",
        "Please hold while I transfer you to the Sales team.",
        f"Your confirmation code is {rdigits(6)}.",
        "We close at 5:30 on Friday, June the third.",
        "Victoria Station is the closest one to our office.",
        "I have been a customer since 2015, that's ten years.",
        "Hope you have a great weekend, Grace period or not.",
    ]
    out.extend(hard)
    out.extend(negatives)
    return ["en\t" + line for line in out]


def main():
    print("# Labeled PII corpus (generated by scripts/make-pii-corpus.py; see there).")
    print("# language<TAB>utterance, personal data marked [[TYPE|value]].")
    for line in pl_lines() + en_lines():
        print(line)


if __name__ == "__main__":
    main()
