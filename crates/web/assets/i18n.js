// Interface text in English and Polish. The browser's language picks one at first; the switch
// in the header changes it and is remembered on this device.

const TEXT = {
  en: {
    appName: "callscope", signInTitle: "Sign in", apiKey: "API key", signIn: "Sign in", signOut: "Sign out",
    keyHelp: "Paste the API key your administrator gave you. It is kept only in this browser tab.",
    badKey: "This key was not accepted.", projects: "Projects", newProject: "New project", name: "Name", create: "Create",
    noProjects: "No projects yet: create the first one.", calls: "Calls", actionItems: "Action items", language: "Language",
    switchLanguage: "Polski", search: "Search", searchHelp: "Words find calls with all of them; \"a phrase\" in quotes; -word leaves calls with it out; OR between words finds either.",
    from: "From", to: "To", apply: "Apply", clear: "Clear", title: "Title", date: "Date", duration: "Duration", sentiment: "Sentiment",
    category: "Category", items: "Items", noCalls: "No calls here yet.", page: "Page", of: "of", previous: "Previous", next: "Next",
    upload: "Upload calls", dropHere: "Drop audio files here, or choose them", chooseFiles: "Choose files", channelRoles: "Channel roles",
    channelRolesHelp: "e.g. agent,customer for a stereo recording", recordedAt: "Recorded on", uploading: "Uploading", queued: "Queued",
    completed: "Completed", failed: "Failed", open: "Open", back: "Back to calls", play: "Play", speakers: "Speakers",
    summary: "Summary", keyPoints: "Key points", resolution: "Resolution", nextSteps: "Next steps", templateAnswers: "Template answers",
    noAnswer: "not answered", recategorise: "Change category", save: "Save", reanalyse: "Re-analyse", delete: "Delete",
    confirmDelete: "Delete this call, its transcript, audio and action items? This cannot be undone.", downloadAudio: "Download audio",
    downloadTranscript: "Download transcript", status: "Status", priority: "Priority", owner: "Owner", deadline: "Deadline", notes: "Notes",
    description: "Description", pending: "Pending", inProgress: "In progress", done: "Done", cancelled: "Cancelled", overdue: "Overdue",
    all: "All", noItems: "No action items.", call: "Call", saved: "Saved", reanalysing: "Re-analysis queued", personalData: "Personal data",
    uncategorized: "Uncategorized", positive: "positive", neutral: "neutral", negative: "negative", unknown: "unknown", talk: "of the talk",
    words: "words", turns: "turns", transcript: "Transcript", loading: "Loading…", error: "Something went wrong", moment: "Play this moment",
    dashboard: "Dashboard", hasOverdue: "with overdue items", timeZone: "Time zone", confidence: "mean confidence", callsPerCategory: "Calls per category", trend: "Sentiment by day",
  },
  pl: {
    appName: "callscope", signInTitle: "Logowanie", apiKey: "Klucz API", signIn: "Zaloguj", signOut: "Wyloguj",
    keyHelp: "Wklej klucz API od administratora. Jest przechowywany tylko w tej karcie przeglądarki.",
    badKey: "Ten klucz nie został przyjęty.", projects: "Projekty", newProject: "Nowy projekt", name: "Nazwa", create: "Utwórz",
    noProjects: "Nie ma jeszcze projektów: utwórz pierwszy.", calls: "Rozmowy", actionItems: "Zadania", language: "Język",
    switchLanguage: "English", search: "Szukaj", searchHelp: "Słowa znajdują rozmowy ze wszystkimi; \"fraza\" w cudzysłowie; -słowo wyklucza rozmowy z nim; OR między słowami znajduje którekolwiek.",
    from: "Od", to: "Do", apply: "Zastosuj", clear: "Wyczyść", title: "Tytuł", date: "Data", duration: "Czas", sentiment: "Nastrój",
    category: "Kategoria", items: "Zadania", noCalls: "Nie ma tu jeszcze rozmów.", page: "Strona", of: "z", previous: "Poprzednia", next: "Następna",
    upload: "Wgraj rozmowy", dropHere: "Upuść tu pliki audio albo je wybierz", chooseFiles: "Wybierz pliki", channelRoles: "Role kanałów",
    channelRolesHelp: "np. agent,customer dla nagrania stereo", recordedAt: "Data nagrania", uploading: "Wysyłanie", queued: "W kolejce",
    completed: "Gotowe", failed: "Błąd", open: "Otwórz", back: "Wróć do rozmów", play: "Odtwórz", speakers: "Rozmówcy",
    summary: "Podsumowanie", keyPoints: "Najważniejsze punkty", resolution: "Rozwiązanie", nextSteps: "Dalsze kroki", templateAnswers: "Odpowiedzi szablonu",
    noAnswer: "brak odpowiedzi", recategorise: "Zmień kategorię", save: "Zapisz", reanalyse: "Analizuj ponownie", delete: "Usuń",
    confirmDelete: "Usunąć tę rozmowę, jej transkrypcję, nagranie i zadania? Tego nie można cofnąć.", downloadAudio: "Pobierz nagranie",
    downloadTranscript: "Pobierz transkrypcję", status: "Status", priority: "Priorytet", owner: "Odpowiedzialny", deadline: "Termin", notes: "Notatki",
    description: "Opis", pending: "Oczekujące", inProgress: "W toku", done: "Zrobione", cancelled: "Anulowane", overdue: "Po terminie",
    all: "Wszystkie", noItems: "Brak zadań.", call: "Rozmowa", saved: "Zapisano", reanalysing: "Ponowna analiza w kolejce", personalData: "Dane osobowe",
    uncategorized: "Bez kategorii", positive: "pozytywny", neutral: "neutralny", negative: "negatywny", unknown: "nieznany", talk: "rozmowy",
    words: "słów", turns: "wypowiedzi", transcript: "Transkrypcja", loading: "Wczytywanie…", error: "Coś poszło nie tak", moment: "Odtwórz ten moment",
    dashboard: "Pulpit", hasOverdue: "z zaległymi zadaniami", timeZone: "Strefa czasowa", confidence: "średnia pewność", callsPerCategory: "Rozmowy według kategorii", trend: "Nastrój dzień po dniu",
  },
};

const CHOICE = "callscope.language";

export let lang = localStorage.getItem(CHOICE) || ((navigator.language || "en").toLowerCase().startsWith("pl") ? "pl" : "en");

/** The text for `key` in the current language. */
export function t(key) {
  return TEXT[lang][key] ?? TEXT.en[key] ?? key;
}

/** Switches between English and Polish and remembers the choice. */
export function toggleLanguage() {
  lang = lang === "pl" ? "en" : "pl";
  localStorage.setItem(CHOICE, lang);
  document.documentElement.lang = lang;
}

/** Dates and times in the current language. */
export function when(iso) {
  return iso ? new Date(iso).toLocaleString(lang === "pl" ? "pl-PL" : "en-GB", { dateStyle: "medium", timeStyle: "short" }) : "";
}
