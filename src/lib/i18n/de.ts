// Die Texte für Besucher auf Deutsch: dieselben Schlüssel wie en.ts.
import type { Messages } from "./en.ts";
import { plural } from "./plural.ts";

const n = (count: number, one: string, other: string) => plural("de", count, { one, other });

export const de: Messages = {
  language: "Deutsch",

  required: (v) => `${v.label}: Bitte ausfüllen.`,
  checkRequired: (v) => `${v.label}: Bitte ankreuzen, um fortzufahren.`,
  chooseFile: (v) => `${v.label}: Bitte eine Datei wählen.`,
  chooseOption: (v) => `${v.label}: Bitte eine der angebotenen Optionen wählen.`,
  enterNumber: (v) => `${v.label}: Bitte eine Zahl eingeben.`,
  tooSmall: (v) => `${v.label}: Bitte ${v.min} oder mehr eingeben.`,
  tooLarge: (v) => `${v.label}: Bitte ${v.max} oder weniger eingeben.`,
  oneValue: (v) => `${v.label}: Bitte einen einzelnen Wert als Text eingeben.`,
  invalidEmail: (v) => `${v.label}: Bitte eine E-Mail-Adresse wie anna@example.com eingeben.`,
  invalidUrl: (v) => `${v.label}: Bitte eine Adresse wie https://example.com eingeben.`,
  invalidDate: (v) => `${v.label}: Bitte ein Datum im Format 2026-11-22 eingeben.`,
  tooShort: (v) => `${v.label}: Bitte mindestens ${n(v.min, "# Zeichen", "# Zeichen")} eingeben.`,
  tooLong: (v) => `${v.label}: Bitte höchstens ${n(v.max, "# Zeichen", "# Zeichen")} eingeben.`,
  patternMismatch: (v) => `${v.label}: Bitte im verlangten Format eingeben.`,
  unknownField: (v) => `${v.name}: Dieses Formular hat kein solches Feld.`,
  fieldsNeedFixing: (v) => n(v.count, "Ein Feld muss korrigiert werden.", "# Felder müssen korrigiert werden."),

  formNotFound: () => "Dieses Formular gibt es nicht.",
  formInactive: () => "Dieses Formular nimmt gerade keine Einsendungen an.",
  originNotAllowed: () => "Dieses Formular nimmt keine Einsendungen von dieser Website an.",
  rateLimited: (v) => `Zu viele Einsendungen von Ihrer Adresse; bitte in ${n(v.seconds, "# Sekunde", "# Sekunden")} erneut versuchen.`,
  captchaFailed: () => "Das Captcha wurde nicht gelöst oder ist abgelaufen. Lassen Sie das Captcha fertig werden und senden Sie das Formular erneut.",
  emptySubmission: () => "Die Einsendung enthält keine Felder.",
  invalidRedirect: () => "Die Seite des Formulars leitet an eine Adresse weiter, die sie nicht verwenden darf.",
  payloadTooLarge: () => "Die Einsendung ist zu groß.",
  filesNotAccepted: () => "Dieses Formular nimmt keine Dateien an.",
  notSent: () => "Die Einsendung konnte nicht gelesen werden. Bitte erneut versuchen.",
  serverError: () => "Bei uns ist etwas schiefgegangen. Bitte gleich noch einmal versuchen.",

  thanksTitle: () => "Vielen Dank",
  thanksHeading: () => "Vielen Dank!",
  thanksText: () => "Ihre Einsendung ist eingegangen.",
  thanksMessage: () => "Vielen Dank! Ihre Einsendung ist eingegangen.",
  errorTitle: () => "Einsendung nicht gesendet",
  errorHeading: () => "Ihre Einsendung wurde nicht gesendet",
  errorStatus: (v) => `Fehler ${v.status}`,
  goBack: () => "Zurück",

  send: () => "Senden",
  sending: () => "Wird gesendet…",
  requiredMark: () => "Pflichtfeld",
  chooseOne: () => "Bitte wählen…",
  honeypot: () => "Dieses Feld leer lassen",
  networkError: () => "Das Formular konnte nicht gesendet werden. Prüfen Sie Ihre Verbindung und versuchen Sie es erneut.",
  errorSummary: (v) => n(v.count, "Ein Feld muss korrigiert werden:", "# Felder müssen korrigiert werden:"),
  pageDisabled: () => "Dieses Formular hat keine Seite.",
  captchaLabel: () => "Ich bin kein Roboter",
  captchaVerifying: () => "Wird geprüft…",
  captchaVerified: () => "Geprüft",
  captchaError: () => "Die Prüfung ist fehlgeschlagen. Bitte später erneut versuchen.",
  captchaExpired: () => "Die Prüfung ist abgelaufen. Bitte erneut versuchen.",
  captchaWait: () => "Wird geprüft… bitte warten.",

  confirmByLink: () => "Bestätigen Sie Ihre Adresse, indem Sie diesen Link öffnen:",

  confirmedTitle: () => "Bestätigt",
  confirmedText: () => "Vielen Dank: Ihre Adresse ist bestätigt. Sie können diese Seite schließen.",
  alreadyConfirmedTitle: () => "Bereits bestätigt",
  alreadyConfirmedText: () => "Diese Adresse wurde bereits bestätigt. Es ist nichts weiter zu tun.",
  linkExpiredTitle: () => "Link abgelaufen",
  linkExpiredText: () => "Dieser Bestätigungslink ist abgelaufen, daher wurde nichts bestätigt. Wenn Sie es noch möchten, senden Sie das Formular erneut.",
  linkInvalidTitle: () => "Link ungültig",
  linkInvalidText: () => "Dieser Bestätigungslink ist ungültig, daher wurde nichts bestätigt. Prüfen Sie, ob der ganze Link aus der E-Mail kopiert wurde.",
};
