interface User {
  id: number;
  name: string;
  email?: string;
}

export function displayName(user: User): string {
  if (user.email) {
    return `${user.name} <${user.email}>`;
  }
  return user.name;
}

export function byId(users: User[]): Map<number, User> {
  const index = new Map<number, User>();
  for (const user of users) {
    index.set(user.id, user);
  }
  return index;
}
