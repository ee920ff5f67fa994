// English strings for teaching materials across pages: the header's group of their pages, and the studio pickers' links to them.
export const materials = {
  navMaterials: 'Materials',
  navRubrics: 'Rubrics',
  navFiles: 'Files',
  makeRubric: 'Make one on the rubrics page (opens in a new tab).',
  makeFile: 'Upload one on the files page (opens in a new tab).',
};
