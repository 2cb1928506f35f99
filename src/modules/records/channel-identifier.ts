/**
 * Normalization of contact channel identifiers, so that one person never becomes two contacts because
 * of formatting: phone numbers (phone, WhatsApp) to E.164 with libphonenumber-js, e-mails lower-cased,
 * platform user ids (Instagram, Messenger) trimmed.
 */
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';

/** `web`: a website chat visitor (issue 32), learned from conversations only, as the web channel's chat id. */
export type ContactChannelType = 'phone' | 'whatsapp' | 'email' | 'instagram' | 'messenger' | 'web';

/** Country assumed for numbers written without an international prefix (the product's home market). */
const DEFAULT_PHONE_COUNTRY: CountryCode = 'GT';

/**
 * E.164 form of `raw` (`+50255551234`), or `undefined` when it is not a possible phone number. WhatsApp
 * ids arrive without `+` (`50255551234`) and are read as international.
 */
export function normalizePhone(raw: string, defaultCountry: CountryCode = DEFAULT_PHONE_COUNTRY): string | undefined {
  const trimmed = raw.trim();
  if (trimmed === '') return undefined;
  const digitsOnly = /^\d{11,15}$/.test(trimmed);
  const parsed = (digitsOnly ? parsePhoneNumberFromString(`+${trimmed}`) : undefined) ?? parsePhoneNumberFromString(trimmed, defaultCountry);
  return parsed?.isPossible() ? parsed.number : undefined;
}

/** The stored form of an identifier for `type`, or `undefined` when it is not valid for that type. */
export function normalizeChannelIdentifier(type: ContactChannelType, raw: string): string | undefined {
  switch (type) {
    case 'phone':
      return normalizePhone(raw);
    case 'whatsapp':
      // The platform's `wa_id` is the customer's identity even where the numbering plan library does not
      // know the range yet (new ranges, test numbers): normalized when it can be, else kept as given.
      return normalizePhone(raw) ?? whatsAppIdAsGiven(raw);
    case 'email': {
      const email = raw.trim().toLowerCase();
      return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) ? email : undefined;
    }
    case 'instagram':
    case 'messenger':
    case 'web': {
      const id = raw.trim();
      return id === '' || id.length > 200 ? undefined : id;
    }
  }
}

/** A WhatsApp id of 1 to 20 digits (with or without `+`) as `+<digits>`; undefined for anything else. */
function whatsAppIdAsGiven(raw: string): string | undefined {
  const m = /^\+?(\d{1,20})$/.exec(raw.trim());
  return m ? `+${m[1]}` : undefined;
}
