/**
 * Errors of ERP-backed modules (SPEC "Errors" 2-3). Each body carries the current `erp_session`
 * snapshot and the `reconcile` hint, so the web client reconciles (sync, then re-read) without
 * touching its CRM session.
 */
import { AppError } from '../../platform/errors.js';
import type { ErpSessionSnapshot } from './erp-session.schemas.js';

const RECONCILE = { sync: 'POST /api/auth/erp-session/sync', snapshot: 'GET /api/auth/erp-session' };

/** 428 `erp_session_required`: the snapshot is missing or expired; a sync is needed. */
export function erpSessionRequired(snapshot: ErpSessionSnapshot): AppError {
  return new AppError(428, 'erp_session_required', 'ERP session required', `The ERP session is ${snapshot.status}; synchronize it first`, {
    erp_session: snapshot,
    reconcile: RECONCILE,
  });
}

/** 409 `erp_entity_mismatch`: the ERP's selected entity differs from the CRM's active entity. */
export function erpEntityMismatch(snapshot: ErpSessionSnapshot): AppError {
  return new AppError(409, 'erp_entity_mismatch', 'ERP entity mismatch', 'The entity selected in the ERP differs from the active CRM entity', {
    erp_session: snapshot,
    reconcile: RECONCILE,
  });
}

/** 401 `erp_session_invalid`: the ERP rejected the stored credentials. The CRM token stays valid. */
export function erpSessionInvalid(snapshot: ErpSessionSnapshot): AppError {
  return new AppError(401, 'erp_session_invalid', 'ERP session invalid', 'The ERP rejected the session credentials; synchronize it again', {
    erp_session: snapshot,
    reconcile: RECONCILE,
  });
}

/** 503 `erp_unavailable`: the ERP did not answer in time or failed. */
export function erpUnavailable(): AppError {
  return new AppError(503, 'erp_unavailable', 'ERP unavailable', 'The ERP is not available; try again later');
}

/** 502 `erp_invalid_response`: the ERP answered something outside its contract. */
export function erpInvalidResponse(): AppError {
  return new AppError(502, 'erp_invalid_response', 'ERP invalid response', 'The ERP answered unexpectedly');
}
