package dev.projections;

import java.util.List;

/** Optional CDI bean listing the application's tenants, for "rebuild all tenants". */
public interface TenantDirectory {

    List<String> tenants();
}
