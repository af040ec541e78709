/* Where an NFS root or /usr is: the kernel's nfsroot= and dracut's root=nfs: forms, and
 * DHCP's root-path. Servers are given by address: the initramfs resolves no names. */
#include <errno.h>
#include <string.h>

#include "net.h"
#include "util.h"

static int set_server(struct nfs_source *s, const char *server, size_t len, const char **why)
{
	if (len == 0)
		return 0;
	if (len >= sizeof(s->server)) {
		*why = "the server is not an IPv4 address; earlymount resolves no host names";
		return -EINVAL;
	}
	memcpy(s->server, server, len);
	s->server[len] = '\0';
	if (!net_is_ipv4(s->server)) {
		*why = "the server is not an IPv4 address; earlymount resolves no host names";
		return -EINVAL;
	}
	return 0;
}

/* path (len bytes) with each "%s" replaced by client, when client is given. */
static int set_path(struct nfs_source *s, const char *path, size_t len, const char *client,
		    const char **why)
{
	size_t used = 0;
	int r = 0;

	for (size_t i = 0; i < len && r == 0; i++) {
		const char *piece = client && path[i] == '%' && i + 1 < len && path[i + 1] == 's' ? client : NULL;
		size_t n = piece ? strlen(piece) : 1;

		if (used + n >= sizeof(s->path))
			r = -EINVAL;
		else
			memcpy(s->path + used, piece ? piece : path + i, n);
		used += n;
		i += piece != NULL;
	}
	if (r == 0)
		s->path[used] = '\0';
	if (r == 0 && s->path[0] != '/')
		r = -EINVAL;
	if (r < 0)
		*why = "no absolute path of the export (SERVER:/PATH)";
	return r;
}

static int set_options(struct nfs_source *s, const char *options, const char **why)
{
	if (strlen(options) >= sizeof(s->options)) {
		*why = "its mount options are too long";
		return -EINVAL;
	}
	memcpy(s->options, options, strlen(options) + 1);
	return 0;
}

int nfs_source_from_dracut(const char *value, struct nfs_source *s, const char **why)
{
	const char *rest = value, *colon, *end;
	bool v4 = s->v4;
	int r = 0;

	memset(s, 0, sizeof(*s));
	s->v4 = v4;
	if (startswith(rest, "nfs4:")) {
		s->v4 = true;
		rest += 5;
	} else if (startswith(rest, "nfs:")) {
		rest += 4;
	}
	if (rest[0] != '/') {
		colon = strchr(rest, ':');
		r = colon ? set_server(s, rest, (size_t)(colon - rest), why)
			  : (*why = "no export path; give SERVER:/PATH", -EINVAL);
		rest = colon ? colon + 1 : rest;
	}
	end = strchr(rest, ':');
	if (r == 0)
		r = set_path(s, rest, end ? (size_t)(end - rest) : strlen(rest), NULL, why);
	if (r == 0 && end)
		r = set_options(s, end + 1, why);
	return r;
}

int nfs_source_from_nfsroot(const char *value, const char *client, struct nfs_source *s,
			    const char **why)
{
	const char *comma = strchr(value, ',');
	size_t len = comma ? (size_t)(comma - value) : strlen(value);
	const char *colon = memchr(value, ':', len);
	const char *slash = memchr(value, '/', len);
	int r = 0;

	memset(s, 0, sizeof(*s));
	/* a colon before the path's first slash ends the server */
	if (colon && (!slash || colon < slash)) {
		r = set_server(s, value, (size_t)(colon - value), why);
		len -= (size_t)(colon + 1 - value);
		value = colon + 1;
	}
	if (r == 0)
		r = set_path(s, value, len, client, why);
	if (r == 0 && comma)
		r = set_options(s, comma + 1, why);
	return r;
}
