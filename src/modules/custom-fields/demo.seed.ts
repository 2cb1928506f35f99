/** Demo custom field groups, fields and values for entity 1. Idempotent. */
import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { customFieldGroup } from './custom-field.table.js';
import { insertField, insertFieldGroup, upsertValue } from './custom-field.repository.js';

export async function seedCustomFieldsDemo(db: Db, target: { contactId: number | null; groupId: number | null; employeeId: number }): Promise<void> {
  const existing = await db.select({ id: customFieldGroup.id }).from(customFieldGroup).where(eq(customFieldGroup.entityId, 1)).limit(1);
  if (existing.length > 0) return;
  const contactGroup = await insertFieldGroup(db, 1, { name: 'Datos adicionales', recordType: 'contact', position: 0 });
  const department = await insertField(db, 1, { customFieldGroupId: contactGroup.id, name: 'Departamento', type: 'department', position: 0 });
  const municipality = await insertField(db, 1, { customFieldGroupId: contactGroup.id, name: 'Municipio', type: 'municipality', position: 1 });
  const budget = await insertField(db, 1, { customFieldGroupId: contactGroup.id, name: 'Presupuesto', type: 'currency', position: 2 });
  await insertField(db, 1, {
    customFieldGroupId: contactGroup.id,
    name: 'Canal preferido',
    type: 'select',
    options: ['WhatsApp', 'Llamada', 'Correo'],
    position: 3,
  });
  const erpCode = await insertField(db, 1, {
    customFieldGroupId: contactGroup.id,
    name: 'Código ERP',
    type: 'text',
    readonly: true,
    overridePermissionCode: 'custom_fields.edit',
    contexts: ['cartera'],
    position: 4,
  });
  await insertField(db, 1, { customFieldGroupId: contactGroup.id, name: 'Foto', type: 'image', position: 5 });
  await insertField(db, 1, { customFieldGroupId: contactGroup.id, name: 'Contrato', type: 'pdf', position: 6 });
  const groupFields = await insertFieldGroup(db, 1, { name: 'Perfil del grupo', recordType: 'group', position: 0 });
  const since = await insertField(db, 1, { customFieldGroupId: groupFields.id, name: 'Cliente desde', type: 'date', position: 0 });
  await insertField(db, 1, { customFieldGroupId: groupFields.id, name: 'Empleados', type: 'number', position: 1 });
  await insertField(db, 1, { customFieldGroupId: groupFields.id, name: 'Crédito aprobado', type: 'boolean', position: 2 });

  const by = target.employeeId;
  if (target.contactId !== null) {
    const recordId = target.contactId;
    await upsertValue(db, 1, {
      customFieldId: department.id,
      recordType: 'contact',
      recordId,
      value: { code: '01', name: 'Guatemala' },
      updatedByEmployeeId: by,
    });
    await upsertValue(db, 1, {
      customFieldId: municipality.id,
      recordType: 'contact',
      recordId,
      value: { department_code: '01', code: '0108', name: 'Mixco' },
      updatedByEmployeeId: by,
    });
    await upsertValue(db, 1, { customFieldId: budget.id, recordType: 'contact', recordId, value: { currency: 'GTQ', amount: 15000 }, updatedByEmployeeId: by });
    await upsertValue(db, 1, { customFieldId: erpCode.id, recordType: 'contact', recordId, value: 'C-1001', updatedByEmployeeId: by });
  }
  if (target.groupId !== null) {
    await upsertValue(db, 1, { customFieldId: since.id, recordType: 'group', recordId: target.groupId, value: '2021-03-15', updatedByEmployeeId: by });
  }
}
