/**
 * The widget's words in Spanish and English (issue 48): chosen by the tag's `data-lang`, else the page's
 * `<html lang>`, else the browser's language; English when none is Spanish. Every problem code the visitor API
 * answers has a sentence a customer understands; a code not listed falls back to a general one, never shown raw.
 */
const EN = {
  openChat: 'Open chat',
  closeChat: 'Close chat',
  unread: (n: number) => (n === 1 ? '1 new message' : `${n} new messages`),
  titleCue: (n: number) => `(${n}) New message`,
  messages: 'Messages',
  message: 'Message',
  placeholder: 'Write a message…',
  send: 'Send',
  attach: 'Attach a file',
  start: 'Start chat',
  name: 'Your name',
  email: 'E-mail',
  phone: 'Phone',
  required: 'required',
  prechatIntro: 'Tell us who you are and we will answer here.',
  typing: (who: string) => `${who} is typing…`,
  you: 'You',
  sending: 'Sending…',
  sent: 'Sent',
  delivered: 'Delivered',
  read: 'Read',
  failed: 'Not sent.',
  retry: 'Retry',
  uploading: 'Uploading',
  offline: 'You are offline: your messages will be sent when the connection returns.',
  reload: 'Your chat session ended. Reload the page to continue.',
  fileNotAllowed: 'This kind of file cannot be sent. Send an image, a PDF or an office document.',
  fileTooLarge: 'This file is too large to send.',
  image: 'Image',
} as const;

type Texts = { [K in keyof typeof EN]: (typeof EN)[K] extends (...a: infer A) => string ? (...a: A) => string : string };

const ES: Texts = {
  openChat: 'Abrir chat',
  closeChat: 'Cerrar chat',
  unread: (n) => (n === 1 ? '1 mensaje nuevo' : `${n} mensajes nuevos`),
  titleCue: (n) => `(${n}) Mensaje nuevo`,
  messages: 'Mensajes',
  message: 'Mensaje',
  placeholder: 'Escribe un mensaje…',
  send: 'Enviar',
  attach: 'Adjuntar un archivo',
  start: 'Iniciar chat',
  name: 'Tu nombre',
  email: 'Correo electrónico',
  phone: 'Teléfono',
  required: 'obligatorio',
  prechatIntro: 'Cuéntanos quién eres y te responderemos aquí.',
  typing: (who) => `${who} está escribiendo…`,
  you: 'Tú',
  sending: 'Enviando…',
  sent: 'Enviado',
  delivered: 'Entregado',
  read: 'Leído',
  failed: 'No se envió.',
  retry: 'Reintentar',
  uploading: 'Subiendo',
  offline: 'Estás sin conexión: tus mensajes se enviarán cuando vuelva.',
  reload: 'Tu sesión de chat terminó. Recarga la página para continuar.',
  fileNotAllowed: 'Este tipo de archivo no se puede enviar. Envía una imagen, un PDF o un documento de oficina.',
  fileTooLarge: 'Este archivo es demasiado grande para enviarlo.',
  image: 'Imagen',
};

/** Sentences for the visitor API's problem codes (docs/api/interactions.md, "Website chat"). */
const PROBLEMS: Record<'en' | 'es', Record<string, string>> = {
  en: {
    rate_limited: 'You are sending messages very fast. Wait a moment and try again.',
    upload_limit_reached: 'You cannot send more files right now. Try again later.',
    media_type_not_allowed: EN.fileNotAllowed,
    media_too_large: EN.fileTooLarge,
    validation_failed: 'This message cannot be sent. Check it and try again.',
    origin_not_allowed: 'The chat is not available on this page.',
    website_not_found: 'The chat is not available on this page.',
    identity_signature_expired: EN.reload,
    invalid_identity_signature: 'The chat could not confirm who you are. Reload the page to continue.',
    invalid_visitor_token: EN.reload,
    network: 'The message could not reach us. Check your connection and try again.',
    general: 'Something went wrong on our side. Try again in a moment.',
  },
  es: {
    rate_limited: 'Estás enviando mensajes muy rápido. Espera un momento y vuelve a intentarlo.',
    upload_limit_reached: 'No puedes enviar más archivos por ahora. Inténtalo más tarde.',
    media_type_not_allowed: ES.fileNotAllowed,
    media_too_large: ES.fileTooLarge,
    validation_failed: 'Este mensaje no se puede enviar. Revísalo y vuelve a intentarlo.',
    origin_not_allowed: 'El chat no está disponible en esta página.',
    website_not_found: 'El chat no está disponible en esta página.',
    identity_signature_expired: ES.reload,
    invalid_identity_signature: 'El chat no pudo confirmar quién eres. Recarga la página para continuar.',
    invalid_visitor_token: ES.reload,
    network: 'El mensaje no nos llegó. Revisa tu conexión y vuelve a intentarlo.',
    general: 'Algo falló de nuestro lado. Vuelve a intentarlo en un momento.',
  },
};

export type Language = 'en' | 'es';

/** `explicit` (the tag's `data-lang`), else the page's language, else the browser's: `es` when it is Spanish. */
export function languageOf(explicit: string | undefined): Language {
  const tag = explicit || document.documentElement.lang || navigator.language || 'en';
  return tag.toLowerCase().startsWith('es') ? 'es' : 'en';
}

export function textsFor(lang: Language): Texts {
  return lang === 'es' ? ES : EN;
}

/** The sentence for problem `code` (a visitor API code, `network`, or anything else: the general one). */
export function problemText(lang: Language, code: string | undefined): string {
  const table = PROBLEMS[lang];
  return (code !== undefined ? table[code] : undefined) ?? table.general!;
}
