/**
 * Typed errors thrown by services and guards. Only `http/error-handler.ts` turns them into RFC 9457
 * problem+json bodies; every `code` is catalogued in docs/api.md.
 */

export interface FieldError {
  /** JSON pointer-ish path of the offending field, e.g. `/body/email`. */
  field: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    detail?: string,
    /** Extra members added to the problem body (e.g. `errors`, `permission`). */
    readonly extensions: Record<string, unknown> = {},
    /** Response headers to add (e.g. `Retry-After`). */
    readonly headers: Record<string, string> = {},
  ) {
    super(detail ?? title);
    this.name = 'AppError';
  }
}

/** 400 `validation_failed`, one item per bad field. */
export function validationFailed(errors: FieldError[], detail = 'The request is not valid'): AppError {
  return new AppError(400, 'validation_failed', 'Validation failed', detail, { errors });
}

/** 400 with a specific code for a rule broken by an otherwise well-formed request. */
export function badRequest(code: string, detail: string, extensions: Record<string, unknown> = {}): AppError {
  return new AppError(400, code, 'Bad request', detail, extensions);
}

/** 404 `not_found`; also the answer for another entity's record (DESIGN "Errors"). */
export function notFound(resource: string, id?: number | string): AppError {
  return new AppError(404, 'not_found', 'Not found', id === undefined ? `${resource} not found` : `${resource} ${id} not found`, {
    resource,
  });
}

/** 401 with the given code (`unauthenticated`, `invalid_token`, `invalid_credentials`, ...). */
export function unauthorized(code: string, detail: string): AppError {
  return new AppError(401, code, 'Unauthorized', detail);
}

/** 403 `permission_denied` naming the missing permission code. */
export function permissionDenied(permission: string): AppError {
  return new AppError(403, 'permission_denied', 'Permission denied', `Requires ${permission}`, { permission });
}

/** 403 with a specific code (e.g. `entity_not_allowed`, `readonly_field`). */
export function forbidden(code: string, detail: string, extensions: Record<string, unknown> = {}): AppError {
  return new AppError(403, code, 'Forbidden', detail, extensions);
}

/** 409 with a specific code (e.g. `already_exists`). */
export function conflict(code: string, detail: string, extensions: Record<string, unknown> = {}): AppError {
  return new AppError(409, code, 'Conflict', detail, extensions);
}

/** 422 with a specific code: the request is well formed but cannot be carried out as asked (e.g. `outside_service_window`). */
export function unprocessable(code: string, detail: string, extensions: Record<string, unknown> = {}): AppError {
  return new AppError(422, code, 'Unprocessable content', detail, extensions);
}
