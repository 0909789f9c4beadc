/** The catalog's machine types: a table whose rows turn into fields on Edit, Add machine type, and Remove. */
import { NEW_MACHINE_TYPE_FORM, machineTypeForm } from '../../shared/catalog-entry-form.js';
import type { MachineTypeView } from '../../shared/images-view.js';
import { CatalogEntryEditor } from './CatalogEntryForm.js';
import { CatalogPanel, type CatalogPanelSpec, catalogColSpan } from './CatalogPanel.js';
import { useCatalogPanel } from './catalog-panel-state.js';
import { CatalogRow } from './CatalogRow.js';

const SPEC: CatalogPanelSpec = {
  kind: 'machineType',
  title: 'Machine types',
  addLabel: 'Add machine type',
  emptyText: 'No machine type. Add one: a launch needs at least one (vCPUs, memory and disk size).',
  columns: ['Name', 'vCPUs', 'Memory', 'Disk'],
};
const MT_COLUMNS = catalogColSpan(SPEC);

/** The Machine types panel of the catalog view. */
export function MachineTypesPanel({ machineTypes }: { machineTypes: MachineTypeView[] }) {
  const panel = useCatalogPanel('mt-h');
  return (
    <CatalogPanel spec={SPEC} state={panel} onAdd={() => panel.setEditing('')} count={machineTypes.length}>
      {machineTypes.map((m) => (
        <CatalogRow key={m.name} kind="machineType" entry={m} panel={panel} form={machineTypeForm} colSpan={MT_COLUMNS}>
          <td>{m.name}</td>
          <td>{m.vcpus}</td>
          <td>{m.memoryMiB} MiB</td>
          <td>{m.diskGiB} GiB</td>
        </CatalogRow>
      ))}
      {panel.editing === '' && (
        <CatalogEntryEditor
          kind="machineType"
          initial={NEW_MACHINE_TYPE_FORM}
          colSpan={MT_COLUMNS}
          onDone={(saved) => panel.closeForm(saved)}
        />
      )}
    </CatalogPanel>
  );
}
