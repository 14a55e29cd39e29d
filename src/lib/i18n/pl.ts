// Teksty, które czyta odwiedzający, po polsku: te same klucze co en.ts. Polski ma trzy formy liczby mnogiej.
import type { Messages } from "./en.ts";
import { plural } from "./plural.ts";

const n = (count: number, one: string, few: string, many: string) => plural("pl", count, { one, few, many, other: few });

export const pl: Messages = {
  language: "Polski",

  required: (v) => `${v.label}: wypełnij to pole.`,
  checkRequired: (v) => `${v.label}: zaznacz to pole, aby kontynuować.`,
  chooseFile: (v) => `${v.label}: wybierz plik.`,
  chooseOption: (v) => `${v.label}: wybierz jedną z podanych opcji.`,
  enterNumber: (v) => `${v.label}: wpisz liczbę.`,
  tooSmall: (v) => `${v.label}: wpisz ${v.min} lub więcej.`,
  tooLarge: (v) => `${v.label}: wpisz ${v.max} lub mniej.`,
  oneValue: (v) => `${v.label}: wpisz jedną wartość jako tekst.`,
  invalidEmail: (v) => `${v.label}: wpisz adres e-mail, np. anna@example.com.`,
  invalidUrl: (v) => `${v.label}: wpisz adres, np. https://example.com.`,
  invalidDate: (v) => `${v.label}: wpisz datę w formacie 2026-11-22.`,
  tooShort: (v) => `${v.label}: wpisz co najmniej ${n(v.min, "# znak", "# znaki", "# znaków")}.`,
  tooLong: (v) => `${v.label}: wpisz najwyżej ${n(v.max, "# znak", "# znaki", "# znaków")}.`,
  patternMismatch: (v) => `${v.label}: wpisz w wymaganym formacie.`,
  unknownField: (v) => `${v.name}: ten formularz nie ma takiego pola.`,
  fieldsNeedFixing: (v) => n(v.count, "Jedno pole wymaga poprawy.", "# pola wymagają poprawy.", "# pól wymaga poprawy."),

  formNotFound: () => "Ten formularz nie istnieje.",
  formInactive: () => "Ten formularz obecnie nie przyjmuje zgłoszeń.",
  originNotAllowed: () => "Ten formularz nie przyjmuje zgłoszeń z tej strony.",
  rateLimited: (v) => `Zbyt wiele zgłoszeń z Twojego adresu; spróbuj ponownie za ${n(v.seconds, "# sekundę", "# sekundy", "# sekund")}.`,
  captchaFailed: () => "Captcha nie została rozwiązana lub jej rozwiązanie wygasło. Poczekaj, aż captcha się zakończy, i wyślij formularz ponownie.",
  emptySubmission: () => "Zgłoszenie nie zawiera żadnych pól.",
  invalidRedirect: () => "Strona formularza przekierowuje na adres, którego nie może używać.",
  payloadTooLarge: () => "Zgłoszenie jest za duże.",
  filesNotAccepted: () => "Ten formularz nie przyjmuje plików.",
  notSent: () => "Nie udało się odczytać zgłoszenia. Spróbuj ponownie.",
  serverError: () => "Coś poszło nie tak po naszej stronie. Spróbuj ponownie za chwilę.",

  thanksTitle: () => "Dziękujemy",
  thanksHeading: () => "Dziękujemy!",
  thanksText: () => "Twoje zgłoszenie zostało przyjęte.",
  thanksMessage: () => "Dziękujemy! Twoje zgłoszenie zostało przyjęte.",
  errorTitle: () => "Zgłoszenie nie zostało wysłane",
  errorHeading: () => "Twoje zgłoszenie nie zostało wysłane",
  errorStatus: (v) => `Błąd ${v.status}`,
  goBack: () => "Wróć",

  send: () => "Wyślij",
  sending: () => "Wysyłanie…",
  requiredMark: () => "wymagane",
  chooseOne: () => "Wybierz…",
  honeypot: () => "Pozostaw to pole puste",
  networkError: () => "Nie udało się wysłać formularza. Sprawdź połączenie i spróbuj ponownie.",
  errorSummary: (v) => n(v.count, "Jedno pole wymaga poprawy:", "# pola wymagają poprawy:", "# pól wymaga poprawy:"),
  pageDisabled: () => "Ten formularz nie ma strony.",
  captchaLabel: () => "Nie jestem robotem",
  captchaVerifying: () => "Sprawdzanie…",
  captchaVerified: () => "Sprawdzono",
  captchaError: () => "Weryfikacja nie powiodła się. Spróbuj później.",
  captchaExpired: () => "Weryfikacja wygasła. Spróbuj ponownie.",
  captchaWait: () => "Sprawdzanie… proszę czekać.",

  confirmByLink: () => "Potwierdź swój adres, otwierając ten link:",

  confirmedTitle: () => "Potwierdzono",
  confirmedText: () => "Dziękujemy: Twój adres został potwierdzony. Możesz zamknąć tę stronę.",
  alreadyConfirmedTitle: () => "Już potwierdzono",
  alreadyConfirmedText: () => "Ten adres został już potwierdzony. Nie trzeba nic więcej robić.",
  linkExpiredTitle: () => "Link wygasł",
  linkExpiredText: () => "Ten link potwierdzający wygasł, więc nic nie zostało potwierdzone. Jeśli nadal chcesz, wyślij formularz ponownie.",
  linkInvalidTitle: () => "Nieprawidłowy link",
  linkInvalidText: () =>
    "Ten link potwierdzający jest nieprawidłowy, więc nic nie zostało potwierdzone. Sprawdź, czy skopiowano cały link z wiadomości e-mail.",
};
