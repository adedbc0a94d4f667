// Users (/weft/users) and access rules (/weft/acl), for an admin, through the same API.
import { el, replace, short, message } from './dom.js';
import { documentEditor } from './editor.js';

const USERS = ['weft', 'users'];
const RULES = ['weft', 'acl'];
const RULE_TEMPLATE = { _id: 'readers-read-db', roles: ['reader'], predicate: "method(GET) and path-prefix('/db')", priority: 0 };

export function adminView(app) {
  const users = el('table', { testid: 'user-table', class: 'docs' });
  const rules = el('table', { testid: 'rule-table', class: 'docs' });
  const userStatus = el('div');
  const ruleStatus = el('div');
  const editorSlot = el('div');
  const name = el('input', { testid: 'user-name', autocomplete: 'off', 'aria-label': 'user name' });
  const password = el('input', { testid: 'user-password', type: 'password', autocomplete: 'new-password', 'aria-label': 'password' });
  const roles = el('input', { testid: 'user-roles', placeholder: 'reader, writer', 'aria-label': 'roles' });

  const loadUsers = async () => {
    try {
      const { documents } = await app.weft.find(...USERS, { pagesize: 1000, sort: { _id: 1 } });
      replace(users,
        el('thead', {}, el('tr', {}, el('th', {}, 'user'), el('th', {}, 'roles'), el('th'))),
        el('tbody', {}, documents.map((u) => el('tr', { testid: 'user-row' },
          el('td', {}, short(u._id)), el('td', {}, (u.roles ?? []).join(', ')),
          el('td', {},
            el('button', { onclick: () => { name.value = u._id; roles.value = (u.roles ?? []).join(', '); password.focus(); } }, 'Edit'),
            el('button', {
              class: 'danger',
              onclick: async () => {
                try { await app.weft.remove(...USERS, u._id, { etag: u._etag?.$oid }); loadUsers(); } catch (e) { app.fail(e, userStatus); }
              },
            }, 'Delete'))))));
    } catch (e) {
      app.fail(e, userStatus);
    }
  };
  const loadRules = async () => {
    try {
      const { documents } = await app.weft.find(...RULES, { pagesize: 1000, sort: { _id: 1 } });
      replace(rules,
        el('thead', {}, el('tr', {}, ['rule', 'roles', 'predicate', 'priority', 'filters'].map((h) => el('th', {}, h)))),
        el('tbody', {}, documents.length === 0
          ? el('tr', {}, el('td', { colSpan: 5, class: 'empty' }, 'No rules: only admin may do anything (and anyone may GET /ping).'))
          : documents.map((r) => el('tr', { testid: 'rule-row', tabIndex: 0, onclick: () => editRule(r) },
            el('td', {}, short(r._id)), el('td', {}, short(r.roles)), el('td', {}, short(r.predicate)),
            el('td', {}, short(r.priority)), el('td', {}, short({ readFilter: r.readFilter, writeFilter: r.writeFilter }))))));
    } catch (e) {
      app.fail(e, ruleStatus);
    }
  };
  const editRule = (rule) => replace(editorSlot, documentEditor(app, ...RULES, rule, {
    template: RULE_TEMPLATE, onSaved: loadRules, onClose: () => replace(editorSlot),
  }));
  const roleList = () => roles.value.split(',').map((r) => r.trim()).filter(Boolean);

  replace(app.main, el('section', { class: 'admin' },
    el('h2', {}, 'Users'),
    el('p', { class: 'hint' }, 'Passwords are hashed by the server and never shown. Editing changes the roles, and the password when one is given.'),
    el('div', { class: 'table-wrap' }, users),
    el('form', {
      class: 'query',
      onsubmit: async (event) => {
        event.preventDefault();
        const user = name.value.trim();
        try {
          const existing = await app.weft.get(...USERS, user);
          if (existing) {
            await app.weft.update(...USERS, user, { roles: roleList(), ...(password.value ? { password: password.value } : {}) },
              { etag: existing._etag?.$oid });
          } else {
            await app.weft.insert(...USERS, { _id: user, password: password.value, roles: roleList() });
          }
          password.value = '';
          replace(userStatus, message('ok', existing ? 'User updated.' : 'User created.'));
          loadUsers();
        } catch (e) {
          app.fail(e, userStatus);
        }
      },
    },
    el('label', {}, 'user', name), el('label', {}, 'password', password), el('label', {}, 'roles', roles),
    el('button', { testid: 'user-save', type: 'submit' }, 'Create or update')),
    userStatus,
    el('h2', {}, 'Access rules'),
    el('p', { class: 'hint' }, 'RESTHeart\'s rule format (docs/security.md), highest priority first. Click a rule to edit it.'),
    el('div', { class: 'table-wrap' }, rules),
    el('button', { testid: 'rule-new', onclick: () => editRule(null) }, 'New rule'),
    ruleStatus, editorSlot));
  loadUsers();
  loadRules();
}
