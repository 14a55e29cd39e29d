// Los textos que lee un visitante, en español: las mismas claves que en.ts.
import type { Messages } from "./en.ts";
import { plural } from "./plural.ts";

const n = (count: number, one: string, other: string) => plural("es", count, { one, other });

export const es: Messages = {
  language: "Español",

  required: (v) => `${v.label}: rellena este campo.`,
  checkRequired: (v) => `${v.label}: marca esta casilla para continuar.`,
  chooseFile: (v) => `${v.label}: elige un archivo.`,
  chooseOption: (v) => `${v.label}: elige una de las opciones.`,
  enterNumber: (v) => `${v.label}: escribe un número.`,
  tooSmall: (v) => `${v.label}: escribe ${v.min} o más.`,
  tooLarge: (v) => `${v.label}: escribe ${v.max} o menos.`,
  oneValue: (v) => `${v.label}: escribe un solo valor como texto.`,
  invalidEmail: (v) => `${v.label}: escribe una dirección de correo como ana@example.com.`,
  invalidUrl: (v) => `${v.label}: escribe una dirección como https://example.com.`,
  invalidDate: (v) => `${v.label}: escribe una fecha como 2026-11-22.`,
  tooShort: (v) => `${v.label}: escribe al menos ${n(v.min, "# carácter", "# caracteres")}.`,
  tooLong: (v) => `${v.label}: escribe como máximo ${n(v.max, "# carácter", "# caracteres")}.`,
  patternMismatch: (v) => `${v.label}: escríbelo en el formato pedido.`,
  unknownField: (v) => `${v.name}: este formulario no tiene ese campo.`,
  fieldsNeedFixing: (v) => n(v.count, "Hay un campo que corregir.", "Hay # campos que corregir."),

  formNotFound: () => "Este formulario no existe.",
  formInactive: () => "Este formulario no acepta envíos en este momento.",
  originNotAllowed: () => "Este formulario no acepta envíos desde este sitio web.",
  rateLimited: (v) => `Demasiados envíos desde tu dirección; inténtalo de nuevo en ${n(v.seconds, "# segundo", "# segundos")}.`,
  captchaFailed: () => "El captcha no se resolvió o su solución caducó. Deja que el captcha termine y envía el formulario de nuevo.",
  emptySubmission: () => "El envío no tiene campos.",
  invalidRedirect: () => "La página del formulario redirige a una dirección que no puede usar.",
  payloadTooLarge: () => "El envío es demasiado grande.",
  filesNotAccepted: () => "Este formulario no acepta archivos.",
  notSent: () => "No se pudo leer el envío. Inténtalo de nuevo.",
  serverError: () => "Algo ha fallado por nuestra parte. Inténtalo de nuevo en un momento.",

  thanksTitle: () => "Gracias",
  thanksHeading: () => "¡Gracias!",
  thanksText: () => "Hemos recibido tu envío.",
  thanksMessage: () => "¡Gracias! Hemos recibido tu envío.",
  errorTitle: () => "Envío no realizado",
  errorHeading: () => "Tu envío no se ha realizado",
  errorStatus: (v) => `Error ${v.status}`,
  goBack: () => "Volver",

  send: () => "Enviar",
  sending: () => "Enviando…",
  requiredMark: () => "obligatorio",
  chooseOne: () => "Elige…",
  honeypot: () => "Deja este campo vacío",
  networkError: () => "No se pudo enviar el formulario. Comprueba tu conexión e inténtalo de nuevo.",
  errorSummary: (v) => n(v.count, "Hay un campo que corregir:", "Hay # campos que corregir:"),
  pageDisabled: () => "Este formulario no tiene página.",
  captchaLabel: () => "No soy un robot",
  captchaVerifying: () => "Verificando…",
  captchaVerified: () => "Verificado",
  captchaError: () => "La verificación falló. Inténtalo más tarde.",
  captchaExpired: () => "La verificación caducó. Inténtalo de nuevo.",
  captchaWait: () => "Verificando… espera, por favor.",

  confirmByLink: () => "Confirma tu dirección abriendo este enlace:",

  confirmedTitle: () => "Confirmado",
  confirmedText: () => "Gracias: tu dirección está confirmada. Puedes cerrar esta página.",
  alreadyConfirmedTitle: () => "Ya confirmado",
  alreadyConfirmedText: () => "Esta dirección ya estaba confirmada. No hay nada más que hacer.",
  linkExpiredTitle: () => "Enlace caducado",
  linkExpiredText: () => "Este enlace de confirmación ha caducado, así que no se ha confirmado nada. Si aún quieres, vuelve a enviar el formulario.",
  linkInvalidTitle: () => "Enlace no válido",
  linkInvalidText: () => "Este enlace de confirmación no es válido, así que no se ha confirmado nada. Comprueba que has copiado el enlace completo del correo.",
};
