// Interface text in English and Polish. The browser's language picks one at first; the switch
// in the header changes it and is remembered on this device.

// [key, English, Polish]: each text once per line, so that a missing translation shows.
const ROWS = [
  [
    "transcriptKeys",
    "Transcript: arrow keys move between words, Enter plays from the word",
    "Transkrypcja: strzałki przechodzą między słowami, Enter odtwarza od słowa",
  ],
  [
    "searchIgnoresFilters",
    "A search looks through every call: the other filters apply to the list without a search.",
    "Wyszukiwanie obejmuje wszystkie rozmowy: pozostałe filtry działają na liście bez wyszukiwania.",
  ],
  ["duplicate", "Uploaded before:", "Wgrane wcześniej:"],
  [
    "unreliableTranscript",
    "The recognizer was unsure of much of this recording (mean word confidence {mean}, unsure words {unsure}): the transcript, summary, categories and personal data below may be wrong. Check them against the audio.",
    "Model rozpoznawania mowy nie był pewny dużej części nagrania (średnia pewność słów {mean}, niepewne słowa {unsure}): transkrypcja, podsumowanie, kategorie i dane osobowe poniżej mogą być błędne. Sprawdź je z nagraniem.",
  ],
  [
    "betterSpeechModel",
    "A larger model than {model} would likely do better: callscope models pull {better}, then set speech_model to it.",
    "Lepiej poradzi sobie zapewne większy model niż {model}: callscope models pull {better}, a potem ustaw go w speech_model.",
  ],
  [
    "copyFailed",
    "The browser did not allow copying: select the secret and copy it.",
    "Przeglądarka nie pozwoliła skopiować: zaznacz sekret i skopiuj go.",
  ],
  ["appName", "callscope", "callscope"],
  ["signInTitle", "Sign in", "Logowanie"],
  ["apiKey", "API key", "Klucz API"],
  ["signIn", "Sign in", "Zaloguj"],
  ["signOut", "Sign out", "Wyloguj"],
  [
    "keyHelp",
    "Paste the API key your administrator gave you. It is kept only in this browser tab.",
    "Wklej klucz API od administratora. Jest przechowywany tylko w tej karcie przeglądarki.",
  ],
  ["badKey", "This key was not accepted.", "Ten klucz nie został przyjęty."],
  ["projects", "Projects", "Projekty"],
  ["newProject", "New project", "Nowy projekt"],
  ["name", "Name", "Nazwa"],
  ["create", "Create", "Utwórz"],
  ["noProjects", "No projects yet: create the first one.", "Nie ma jeszcze projektów: utwórz pierwszy."],
  ["calls", "Calls", "Rozmowy"],
  ["actionItems", "Action items", "Zadania"],
  ["language", "Language", "Język"],
  ["switchLanguage", "Polski", "English"],
  ["search", "Search", "Szukaj"],
  [
    "searchHelp",
    'Words find calls with all of them; "a phrase" in quotes; -word leaves calls with it out; OR between words finds either.',
    'Słowa znajdują rozmowy ze wszystkimi; "fraza" w cudzysłowie; -słowo wyklucza rozmowy z nim; OR między słowami znajduje którekolwiek.',
  ],
  ["from", "From", "Od"],
  ["to", "To", "Do"],
  ["apply", "Apply", "Zastosuj"],
  ["clear", "Clear", "Wyczyść"],
  ["title", "Title", "Tytuł"],
  ["date", "Date", "Data"],
  ["duration", "Duration", "Czas"],
  ["sentiment", "Sentiment", "Nastrój"],
  ["category", "Category", "Kategoria"],
  ["items", "Items", "Zadania"],
  ["noCalls", "No calls here yet.", "Nie ma tu jeszcze rozmów."],
  ["page", "Page", "Strona"],
  ["of", "of", "z"],
  ["previous", "Previous", "Poprzednia"],
  ["next", "Next", "Następna"],
  ["upload", "Upload calls", "Wgraj rozmowy"],
  ["dropHere", "Drop audio files here, or choose them", "Upuść tu pliki audio albo je wybierz"],
  ["chooseFiles", "Choose files", "Wybierz pliki"],
  ["channelRoles", "Channel roles", "Role kanałów"],
  ["channelRolesHelp", "e.g. agent,customer for a stereo recording", "np. agent,customer dla nagrania stereo"],
  ["recordedAt", "Recorded on", "Data nagrania"],
  ["uploading", "Uploading", "Wysyłanie"],
  ["waitingToUpload", "Waiting to upload", "Czeka na wysłanie"],
  ["serverBusyRetry", "Server busy, sending again in", "Serwer zajęty, ponowne wysłanie za"],
  ["queued", "Queued", "W kolejce"],
  ["completed", "Completed", "Gotowe"],
  ["failed", "Failed", "Błąd"],
  ["open", "Open", "Otwórz"],
  ["back", "Back to calls", "Wróć do rozmów"],
  ["play", "Play", "Odtwórz"],
  ["speakers", "Speakers", "Rozmówcy"],
  ["summary", "Summary", "Podsumowanie"],
  ["keyPoints", "Key points", "Najważniejsze punkty"],
  ["resolution", "Resolution", "Rozwiązanie"],
  ["nextSteps", "Next steps", "Dalsze kroki"],
  ["templateAnswers", "Template answers", "Odpowiedzi szablonu"],
  ["noAnswer", "not answered", "brak odpowiedzi"],
  ["recategorise", "Change category", "Zmień kategorię"],
  ["save", "Save", "Zapisz"],
  ["reanalyse", "Re-analyse", "Analizuj ponownie"],
  ["delete", "Delete", "Usuń"],
  [
    "confirmDelete",
    "Delete this call, its transcript, audio and action items? This cannot be undone.",
    "Usunąć tę rozmowę, jej transkrypcję, nagranie i zadania? Tego nie można cofnąć.",
  ],
  ["downloadAudio", "Download audio", "Pobierz nagranie"],
  ["downloadTranscript", "Download transcript", "Pobierz transkrypcję"],
  ["downloadSrt", "Subtitles (SRT)", "Napisy (SRT)"],
  ["downloadVtt", "Subtitles (WebVTT)", "Napisy (WebVTT)"],
  ["downloadJson", "Call as JSON", "Rozmowa jako JSON"],
  ["downloadCsv", "Download CSV", "Pobierz CSV"],
  ["status", "Status", "Status"],
  ["priority", "Priority", "Priorytet"],
  ["mergeInto", "Merge into", "Scal z"],
  ["newItem", "A task the analysis missed", "Zadanie, którego analiza nie znalazła"],
  ["addItem", "Add", "Dodaj"],
  ["LOW", "low", "niski"],
  ["MEDIUM", "medium", "średni"],
  ["HIGH", "high", "wysoki"],
  ["owner", "Owner", "Odpowiedzialny"],
  ["deadline", "Deadline", "Termin"],
  ["notes", "Notes", "Notatki"],
  ["description", "Description", "Opis"],
  ["pending", "Pending", "Oczekujące"],
  ["inProgress", "In progress", "W toku"],
  ["done", "Done", "Zrobione"],
  ["cancelled", "Cancelled", "Anulowane"],
  ["overdue", "Overdue", "Po terminie"],
  ["all", "All", "Wszystkie"],
  ["noItems", "No action items.", "Brak zadań."],
  ["call", "Call", "Rozmowa"],
  ["saved", "Saved", "Zapisano"],
  ["reanalysing", "Re-analysis queued", "Ponowna analiza w kolejce"],
  ["personalData", "Personal data", "Dane osobowe"],
  ["uncategorized", "Uncategorized", "Bez kategorii"],
  ["positive", "positive", "pozytywny"],
  ["neutral", "neutral", "neutralny"],
  ["negative", "negative", "negatywny"],
  ["unknown", "unknown", "nieznany"],
  ["talk", "of the talk", "rozmowy"],
  ["transcript", "Transcript", "Transkrypcja"],
  ["recording", "Recording", "Nagranie"],
  ["loading", "Loading…", "Wczytywanie…"],
  ["error", "Something went wrong", "Coś poszło nie tak"],
  ["moment", "Play this moment", "Odtwórz ten moment"],
  ["dashboard", "Dashboard", "Pulpit"],
  ["hasOverdue", "with overdue items", "z zaległymi zadaniami"],
  ["created", "Created", "Utworzenie"],
  ["callDate", "Call date", "Data rozmowy"],
  ["sortBy", "Sort by", "Sortuj wg"],
  ["descending", "newest/highest first", "malejąco"],
  ["direction", "Direction", "Kierunek"],
  ["ascending", "oldest/lowest first", "rosnąco"],
  ["settings", "Settings", "Ustawienia"],
  ["parent", "Parent", "Nadrzędna"],
  ["topLevel", "(top level)", "(najwyższy poziom)"],
  [
    "noCategories",
    "No categories yet: calls stay uncategorized.",
    "Nie ma jeszcze kategorii: rozmowy zostają bez kategorii.",
  ],
  ["rename", "Rename", "Zmień nazwę"],
  ["move", "Move", "Przenieś"],
  // Counts after a colon, so that no language needs a plural form for them.
  [
    "confirmCategoryDelete",
    'Delete "{name}"? Categories below it, deleted with it: {below}. Calls that become uncategorized: {calls}.',
    'Usunąć "{name}"? Kategorie pod nią, usuwane razem z nią: {below}. Rozmowy, które zostaną bez kategorii: {calls}.',
  ],
  ["add", "Add", "Dodaj"],
  ["categories", "Categories", "Kategorie"],
  ["templates", "Analysis templates", "Szablony analizy"],
  ["label", "Label", "Etykieta"],
  ["question", "Question", "Pytanie"],
  ["answerType", "Answer type", "Typ odpowiedzi"],
  ["options", "Options", "Opcje"],
  ["optionsHelp", "options, comma-separated", "opcje, po przecinku"],
  ["noTemplates", "No templates yet.", "Nie ma jeszcze szablonów."],
  ["active", "active", "aktywny"],
  ["deactivate", "Deactivate", "Wyłącz"],
  ["activate", "Activate", "Włącz"],
  ["addField", "Add a field", "Dodaj pole"],
  ["presets", "Speaker presets", "Zestawy rozmówców"],
  ["noPresets", "No presets yet.", "Nie ma jeszcze zestawów."],
  ["default", "default", "domyślny"],
  ["makeDefault", "Make default", "Ustaw jako domyślny"],
  ["webhooks", "Webhooks", "Webhooki"],
  ["deliveries", "Deliveries", "Dostarczenia"],
  ["noDeliveries", "No deliveries yet.", "Nie ma jeszcze dostarczeń."],
  ["event", "Event", "Zdarzenie"],
  ["attempts", "Attempts", "Próby"],
  ["answer", "Answer", "Odpowiedź"],
  ["redeliver", "Send again", "Wyślij ponownie"],
  [
    "secretOnce",
    "The signing secret, shown only now: keep it where your receiver can read it.",
    "Sekret podpisu, pokazywany tylko teraz: zapisz go tam, gdzie odbiorca go odczyta.",
  ],
  ["copied", "Copied", "Skopiowano"],
  ["copy", "Copy", "Kopiuj"],
  ["noWebhooks", "No webhooks yet.", "Nie ma jeszcze webhooków."],
  ["paused", "paused", "wstrzymany"],
  ["pause", "Pause", "Wstrzymaj"],
  ["resume", "Resume", "Wznów"],
  ["test", "Send a test", "Wyślij test"],
  ["events", "Events", "Zdarzenia"],
  ["timeZone", "Time zone", "Strefa czasowa"],
  ["confidence", "mean confidence", "średnia pewność"],
  ["callsPerCategory", "Calls per category", "Rozmowy według kategorii"],
  ["trend", "Sentiment by day", "Nastrój dzień po dniu"],
  ["sentimentByQuarter", "Sentiment by quarter of the call", "Nastrój w kolejnych ćwierciach rozmowy"],
  ["quarter", "Quarter", "Ćwierć"],
  ["speaker", "Speaker", "Rozmówca"],
  ["speakerName", "Name of", "Nazwa rozmówcy"],
  ["swapSpeakers", "Swap the two", "Zamień miejscami"],
  ["renameSpeakers", "Save names", "Zapisz nazwy"],
  ["yes", "yes", "tak"],
  ["no", "no", "nie"],
  ["stage.QUEUED", "queued", "w kolejce"],
  ["stage.DECODING", "decoding", "dekodowanie"],
  ["stage.TRANSCRIBING", "transcribing", "transkrypcja"],
  ["stage.DIARIZING", "telling speakers apart", "rozpoznawanie mówców"],
  ["stage.ANALYZING", "analysing", "analiza"],
  ["stage.INDEXING", "indexing", "indeksowanie"],
  ["stage.DONE", "done", "gotowe"],
  ["answer.TEXT", "text", "tekst"],
  ["answer.NUMBER", "number", "liczba"],
  ["answer.BOOLEAN", "yes or no", "tak lub nie"],
  ["answer.DATE", "date", "data"],
  ["answer.SINGLE_CHOICE", "one of the options", "jedna z opcji"],
  ["answer.MULTI_CHOICE", "any of the options", "dowolne z opcji"],
  ["characteristics", "Call characteristics", "Charakterystyka rozmowy"],
  ["timeline", "Timeline", "Przebieg rozmowy"],
  ["talkTime", "Talk", "Mowa"],
  ["nonTalk", "Nobody talks", "Nikt nie mówi"],
  ["longestPause", "Longest pause", "Najdłuższa przerwa"],
  ["silenceTime", "Silence in long pauses", "Cisza w długich przerwach"],
  ["longPauses", "Long pauses", "Długie przerwy"],
  ["onHold", "On hold (music or tones)", "Oczekiwanie (muzyka lub sygnał)"],
  ["overlap", "Talking at once", "Mówią naraz"],
  ["interruptions", "Interruptions", "Przerwania"],
  ["interruptionsMade", "Interrupted others", "Przerywał innym"],
  ["interrupted", "{who} interrupted {whom} ({overlap} at once)", "{who} przerwał(a): {whom} ({overlap} naraz)"],
  ["wordsPerMinute", "Words a minute", "Słowa na minutę"],
  ["loudness", "Loudness", "Głośność"],
  ["bySpeaker", "By speaker", "Według rozmówcy"],
  ["loudnessByQuarter", "Loudness by quarter of the call", "Głośność w kolejnych ćwierciach rozmowy"],
  ["sound.silence", "silence", "cisza"],
  ["sound.music", "music or tones", "muzyka lub sygnał"],
  ["sound.other", "other sound", "inny dźwięk"],
  ["sortBy", "Order", "Kolejność"],
  ["sort.CREATED_AT", "newest first", "najnowsze najpierw"],
  ["sort.DURATION", "longest call first", "najdłuższe najpierw"],
  ["sort.NON_TALK", "most time nobody talks", "najwięcej ciszy"],
  ["sort.LONGEST_NON_TALK", "longest pause first", "najdłuższa przerwa najpierw"],
  ["sort.MUSIC", "longest on hold first", "najdłużej oczekujące najpierw"],
  ["sort.INTERRUPTIONS", "most interruptions first", "najwięcej przerwań najpierw"],
  ["sort.TALK_SPEED", "fastest talk first", "najszybsza mowa najpierw"],
  ["pauseOverS", "Pause longer than (s)", "Przerwa dłuższa niż (s)"],
  ["interruptionsOver", "Interruptions more than", "Przerwań więcej niż"],
  ["dailyCharacteristics", "Call characteristics by day", "Charakterystyka rozmów dzień po dniu"],
  ["nonTalkShare", "Share nobody talks", "Udział ciszy"],
  ["average", "Average", "Średnio"],
  ["language.en", "English", "angielski"],
  ["language.pl", "Polish", "polski"],
];

// [key, English singular, plural; Polish singular, few (2–4, 22–24, …), many (5–21, 25–31, …)].
const COUNTED = [
  ["call", "call", "calls", "rozmowa", "rozmowy", "rozmów"],
  ["word", "word", "words", "słowo", "słowa", "słów"],
  ["turn", "turn", "turns", "wypowiedź", "wypowiedzi", "wypowiedzi"],
  ["item", "item", "items", "zadanie", "zadania", "zadań"],
  ["interruption", "interruption", "interruptions", "przerwanie", "przerwania", "przerwań"],
];

const TEXT = {
  en: Object.fromEntries(ROWS.map(([key, en]) => [key, en])),
  pl: Object.fromEntries(ROWS.map(([key, , pl]) => [key, pl])),
};

const CHOICE = "callscope.language";

export let lang =
  localStorage.getItem(CHOICE) || ((navigator.language || "en").toLowerCase().startsWith("pl") ? "pl" : "en");

/** The text for `key` in the current language. */
export function t(key) {
  return TEXT[lang][key] ?? TEXT.en[key] ?? key;
}

/** `n` and the noun `key` in the form its number takes: "1 call", "2 calls"; in Polish "1 rozmowa",
 *  "2 rozmowy", "5 rozmów", "22 rozmowy", "12 rozmów". */
export function count(n, key, language = lang) {
  const row = COUNTED.find(([k]) => k === key);
  if (!row) return `${n} ${key}`;
  const [, one, other, jeden, kilka, wiele] = row;
  if (language !== "pl") return `${n} ${n === 1 ? one : other}`;
  const tens = n % 100;
  const units = n % 10;
  const form = n === 1 ? jeden : units >= 2 && units <= 4 && (tens < 12 || tens > 14) ? kilka : wiele;
  return `${n} ${form}`;
}

/** The level a sentiment score (−1…1) reads as: the analysis's own thresholds. */
export const levelOf = (score) => (score >= 0.15 ? "positive" : score <= -0.15 ? "negative" : "neutral");

/** Switches between English and Polish and remembers the choice. */
export function toggleLanguage() {
  lang = lang === "pl" ? "en" : "pl";
  localStorage.setItem(CHOICE, lang);
  document.documentElement.lang = lang;
}

/** Dates and times in the current language. */
export function when(iso) {
  return iso
    ? new Date(iso).toLocaleString(lang === "pl" ? "pl-PL" : "en-GB", { dateStyle: "medium", timeStyle: "short" })
    : "";
}
