// Spanish strings for teaching materials across pages: the header's group of their pages, and the studio pickers' links to them.
export const materials = {
  navMaterials: 'Materiales',
  navRubrics: 'Rúbricas',
  navFiles: 'Archivos',
  makeRubric: 'Crea una en la página de rúbricas (se abre en una pestaña nueva).',
  makeFile: 'Sube uno en la página de archivos (se abre en una pestaña nueva).',
};
